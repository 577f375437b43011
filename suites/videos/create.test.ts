/**
 * The create rules of POST /v1/videos (Part 2 §4.1, §7, §8), each at both edges: the eight models, required
 * fields, prompt and safety_identifier lengths, seconds (vidA values, the string form, other models), sizes
 * per model, and input_reference by multipart. Accepted creates start real (billable) jobs: each reserves its
 * estimated cost first, and afterAll deletes them all.
 */
import { afterAll, describe } from 'vitest'
import { expectKeyAccepted, expectThat } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { notReferenceImages, referenceImages } from './images.ts'
import {
  ACCEPTED_WORDS,
  createAll,
  createVideo,
  deleteCreated,
  isAccepted,
  presentVideoModel,
  VIDEO,
  VIDEO_MODELS,
  videoModel,
  type Created,
  type CreateOptions,
  type VideoModelName,
} from './jobs.ts'
import { namedModel } from '../shared/named-models.ts'
import { howToNameId } from '../shared/names.ts'
import { limitOf } from '../../common/request-schemas.ts'

const api = target()
afterAll(() => deleteCreated(api))

const PARALLEL = 4 // creates in flight at once: quick against a loopback target, polite to a remote one

interface Case {
  what: string
  options: CreateOptions
}

type Wanted = (made: Created) => boolean

/** A refusal of a value past what the words list: any 4xx (400, 404, 413, 422 are all plain refusals). */
const REFUSED: Wanted = (made) => made.ex.status >= 400 && made.ex.status < 500
const REFUSED_WORDS = 'a refusal (any 4xx)'
const only400: Wanted = (made) => made.ex.status === 400
/** "Returns the job" (§4.1): a 2xx whose body is the job, with its id. */
const RETURNS_JOB: Wanted = (made) => isAccepted(made.ex.status) && made.id !== undefined

/** What an answer was, for a message: a server error is named, since it is no refusal, and a 2xx without a job. */
function answered(what: string, ex: Exchange): string {
  const note =
    ex.status >= 500 ? ' (a server error, not a refusal)' : isAccepted(ex.status) ? ' (a 2xx with no job id)' : ''
  return `${what}: ${ex.status}${note} ${ex.text.slice(0, 160)}`
}

/**
 * A 429 says the account was limited, not what the target makes of the value: a create that met one skips its test,
 * naming the rate limit, whatever the check wanted.
 */
function skipOnRateLimit(results: ReadonlyArray<{ made: Created }>): void {
  const limited = results.find((r) => r.made.ex.status === 429)
  if (limited !== undefined)
    skipTest(
      `rate limited: ${limited.made.ex.excerpt.method} ${limited.made.ex.excerpt.path} answered 429, which says nothing of the value sent; run again with fewer creates at once or a higher limit`,
    )
}

/** Runs the creates; those whose answer `wanted` refuses, with what they answered. A refused key or a 429 skips. */
async function outcomes(cases: readonly Case[], wanted: Wanted): Promise<{ wrong: string[]; first?: Exchange }> {
  const results = await createAll(cases, PARALLEL, async (c) => ({ c, made: await createVideo(api, c.options) }))
  for (const { made } of results) expectKeyAccepted(made.ex)
  skipOnRateLimit(results)
  const bad = results.filter((r) => !wanted(r.made))
  return {
    wrong: bad.map((r) => answered(r.c.what, r.made.ex)),
    ...(bad[0] ? { first: bad[0].made.ex } : {}),
  }
}

async function expectAll(cases: readonly Case[], wanted: Wanted, expected: string): Promise<void> {
  const { wrong, first } = await outcomes(cases, wanted)
  expectThat(wrong.length === 0, expected, wrong, first)
}

const accepted = (what: string, options: CreateOptions): Case => ({ what, options })

/** Exactly n characters (code points), readable in a report. */
function text(n: number): string {
  const unit = 'a lighthouse at dusk, waves rolling in slowly; '
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n)
}

describe('models and required fields (Part 2 §4.1)', () => {
  check(
    'P2-4.1-models',
    'each of the eight models is accepted with a prompt and the default seconds and size',
    async () => {
      const named = await Promise.all(
        VIDEO_MODELS.map(async (ref) => ({ ref, model: await presentVideoModel(api, ref) })),
      )
      const absent = named.filter((n) => n.model === undefined).map((n) => n.ref)
      const cases = named.flatMap(({ ref, model }) =>
        model === undefined
          ? []
          : [accepted(model === ref ? ref : `${ref} (${model})`, { label: `model-${ref}`, model })],
      )
      const results = await createAll(cases, PARALLEL, async (c) => ({ c, made: await createVideo(api, c.options) }))
      for (const { c, made } of results) {
        const job = made.job
        if (isAccepted(made.ex.status) && job)
          observe(
            'video defaults',
            `${c.what} without seconds and size: seconds ${JSON.stringify(job.seconds)}, size ${JSON.stringify(job.size)} (fields not shown in §2.1)`,
          )
      }
      for (const { made } of results) expectKeyAccepted(made.ex)
      skipOnRateLimit(results)
      const bad = results.filter((r) => !RETURNS_JOB(r.made))
      expectThat(
        bad.length === 0,
        `${ACCEPTED_WORDS} for every model of §4.1`,
        bad.map((r) => answered(r.c.what, r.made.ex)),
        bad[0]?.made.ex,
      )
      if (absent.length > 0)
        skipTest(`the target lists no ${absent.join(', ')}: ${howToNameId(absent[0] as string)} for each`)
    },
  )

  check('P2-4.1-model-unknown', 'a model outside the eight is refused', async () => {
    const ids = await api.get('/v1/models')
    const data = isObject(ids.json) && Array.isArray(ids.json.data) ? ids.json.data.filter(isObject) : []
    const chat =
      namedModel('chat') ?? (data.find((m) => m.mode === 'chat' && typeof m.id === 'string')?.id as string | undefined)
    const cases: Case[] = [
      {
        what: 'an unknown id',
        options: { label: 'model-unknown', model: `gc-${runConfig().runId}-no-such-video-model` },
      },
    ]
    if (chat !== undefined)
      cases.push({ what: `the chat model ${chat}`, options: { label: 'model-chat', model: chat } })
    await expectAll(cases, REFUSED, `${REFUSED_WORDS}: the model is not one of the video models`)
  })

  check('P2-4.1-required-fields', 'a create without model, or without prompt, is refused with 400', async () => {
    await expectAll(
      [
        { what: 'no model', options: { label: 'no-model', fields: { model: undefined } } },
        { what: 'no prompt', options: { label: 'no-prompt', fields: { prompt: undefined } } },
      ],
      only400,
      'status 400: model and prompt are required',
    )
  })

  // Section 8's limits, read from the request schema the reference gateway enforces too.
  const maxPrompt = limitOf('POST /v1/videos', 'body', 'prompt', 'maxLength')
  check('P2-8-prompt-length', `a prompt of ${maxPrompt} characters is accepted`, async () => {
    await expectAll(
      [accepted(`a prompt of ${maxPrompt} characters`, { label: 'prompt-max', fields: { prompt: text(maxPrompt) } })],
      RETURNS_JOB,
      `${ACCEPTED_WORDS} for a prompt of ${maxPrompt} characters`,
    )
  })

  check('P2-8-prompt-refused', `a prompt of ${maxPrompt + 1} characters is refused`, async () => {
    const over = maxPrompt + 1
    await expectAll(
      [{ what: `a prompt of ${over} characters`, options: { label: 'prompt-over', fields: { prompt: text(over) } } }],
      REFUSED,
      `${REFUSED_WORDS} for a prompt of ${over} characters`,
    )
  })

  const maxSid = limitOf('POST /v1/videos', 'body', 'safety_identifier', 'maxLength')
  const longSid = (n: number) => `gc-${runConfig().runId}-`.padEnd(n, 'x')
  check('P2-8-safety-identifier-length', `a safety_identifier of ${maxSid} characters is accepted`, async () => {
    await expectAll(
      [accepted(`safety_identifier of ${maxSid}`, { label: 'sid-max', safetyIdentifier: longSid(maxSid) })],
      RETURNS_JOB,
      `${ACCEPTED_WORDS} for a safety_identifier of ${maxSid} characters`,
    )
  })

  check('P2-8-safety-identifier-refused', `a safety_identifier of ${maxSid + 1} characters is refused`, async () => {
    const over = maxSid + 1
    await expectAll(
      [{ what: `safety_identifier of ${over}`, options: { label: 'sid-over', safetyIdentifier: longSid(over) } }],
      REFUSED,
      `${REFUSED_WORDS} for a safety_identifier of ${over} characters`,
    )
  })
})

/** The target's names for the models of a rule, in the reference's order; a model the target lacks skips the test. */
function targetModels(refs: readonly string[]): Promise<Array<{ ref: VideoModelName; model: string }>> {
  return Promise.all(refs.map(async (ref) => ({ ref: ref as VideoModelName, model: await videoModel(api, ref) })))
}

describe('seconds (Part 2 §4.1, §7)', () => {
  const vidA = VIDEO_MODELS.filter((m) => VIDEO.models[m as VideoModelName].family === 'vidA')
  const others = VIDEO_MODELS.filter((m) => !vidA.includes(m))

  check(
    'P2-4.1-seconds-values',
    'vidA models accept seconds "4", "8" and "12"; "0", "3", "5" and "16" are refused with 400',
    async () => {
      const models = await targetModels(vidA)
      const valid = models.flatMap(({ ref, model }) =>
        (VIDEO.models[ref].seconds ?? []).map((s) =>
          accepted(`${model} seconds "${s}"`, { label: `seconds-${s}`, model, fields: { seconds: s } }),
        ),
      )
      await expectAll(valid, RETURNS_JOB, `${ACCEPTED_WORDS} for every listed duration`)
      const invalid = models.flatMap(({ model }) =>
        ['0', '3', '5', '16'].map((s) => ({
          what: `${model} seconds "${s}"`,
          options: { label: `seconds-${s}`, model, fields: { seconds: s } },
        })),
      )
      await expectAll(invalid, only400, 'status 400 for an unsupported duration (§7)')
    },
  )

  check('P2-4.1-seconds-string', 'seconds sent as a JSON number is refused', async () => {
    await expectAll(
      [{ what: 'seconds 8 (a number)', options: { label: 'seconds-number', fields: { seconds: 8 } } }],
      REFUSED,
      `${REFUSED_WORDS}: seconds is sent as a string`,
    )
  })

  // Durations are "generally" multiples of 4: for the models whose seconds §4.1 does not show, what a target makes of
  // "5" is recorded, never judged.
  check('P2-4.1-seconds-other-models', 'what models other than vidA answer to seconds "5" is recorded', async () => {
    const models = await targetModels(others)
    const results = await createAll(models, PARALLEL, async ({ model }) => ({
      model,
      made: await createVideo(api, { label: 'seconds-5', model, fields: { seconds: '5' } }),
    }))
    for (const { made } of results) expectKeyAccepted(made.ex)
    observe(
      'video seconds "5" on models other than vidA',
      results.map(({ model, made }) => `${model}: ${made.ex.status}`).join(', '),
    )
  })
})

/** Models whose sizes §4.1 lists, with their lists. */
const LISTED = Object.entries(VIDEO.models).flatMap(([model, rule]) =>
  rule.sizes === null ? [] : [{ ref: model, sizes: rule.sizes }],
)
const ALL_LISTED_SIZES = [...new Set(LISTED.flatMap((l) => l.sizes))]
const NO_LIST_SIZE = '1000x1000' // in no list of §4.1
/**
 * The duration a listed size is tried at when the default is refused, for the models whose seconds §4.1 does not
 * show (the vidB preview models): a larger size may need a longer clip there. vidA's seconds are listed, default
 * included, so a vidA size is judged at the default.
 */
const SIZE_RETRY_SECONDS = '8'
/** No WIDTHxHEIGHT however read; a listed size written otherwise (720X1280) is how a target reads it, not judged. */
const NOT_A_SIZE = ['720x1280x2', 'wide']

describe('sizes (Part 2 §4.1)', () => {
  check(
    'P2-4.1-sizes-listed',
    'every size listed for vidA-2, vidA-2-pro and the vidB preview models is accepted, at some duration',
    async () => {
      const models = await targetModels(LISTED.map((l) => l.ref))
      const cases = LISTED.flatMap(({ ref, sizes }, i) => {
        const model = models[i]?.model as string
        const retry = VIDEO.models[ref as VideoModelName].seconds === null
        return sizes.map((size) => ({ model, size, retry }))
      })
      const results = await createAll(cases, PARALLEL, async ({ model, size, retry }) => {
        let made = await createVideo(api, { label: `size-${size}`, model, fields: { size } })
        expectKeyAccepted(made.ex)
        const refused = made.ex.status >= 400 && made.ex.status < 500 && made.ex.status !== 429
        if (retry && refused)
          made = await createVideo(api, {
            label: `size-${size}-${SIZE_RETRY_SECONDS}s`,
            model,
            fields: { size, seconds: SIZE_RETRY_SECONDS },
          })
        expectKeyAccepted(made.ex)
        return { what: `${model} ${size}`, made }
      })
      skipOnRateLimit(results)
      const bad = results.filter((r) => !RETURNS_JOB(r.made))
      expectThat(
        bad.length === 0,
        `${ACCEPTED_WORDS} for every listed size, at the default duration (vidB preview: or at "${SIZE_RETRY_SECONDS}")`,
        bad.map((r) => answered(r.what, r.made.ex)),
        bad[0]?.made.ex,
      )
    },
  )

  check('P2-4.1-sizes-unlisted', "a size outside the model's list, or no WIDTHxHEIGHT at all, is refused", async () => {
    const models = await targetModels(LISTED.map((l) => l.ref))
    const cases: Case[] = LISTED.flatMap(({ sizes }, i) => {
      const model = models[i]?.model as string
      return [...ALL_LISTED_SIZES.filter((s) => !sizes.includes(s)), NO_LIST_SIZE].map((size) => ({
        what: `${model} ${size}`,
        options: { label: `size-${size}`, model, fields: { size } },
      }))
    })
    for (const size of NOT_A_SIZE)
      cases.push({ what: `size ${JSON.stringify(size)}`, options: { label: 'size-malformed', fields: { size } } })
    await expectAll(cases, REFUSED, `${REFUSED_WORDS} for a size the model does not list, or no WIDTHxHEIGHT`)
  })
})

describe('input_reference (Part 2 §4.1)', () => {
  check(
    'P2-4.1-input-reference',
    'a multipart create with a JPEG, a PNG or a WebP input_reference is accepted',
    async () => {
      await expectAll(
        referenceImages().map(({ type, part }) =>
          accepted(`a ${type} input_reference`, { label: `reference-${type.toLowerCase()}`, reference: part }),
        ),
        RETURNS_JOB,
        `${ACCEPTED_WORDS} for each image type of §4.1`,
      )
    },
  )

  check(
    'P2-4.1-input-reference-type',
    'an input_reference that is not a JPEG, PNG or WebP image is refused',
    async () => {
      await expectAll(
        notReferenceImages().map(({ type, part }) => ({
          what: `a ${type} input_reference`,
          options: { label: 'reference-other', reference: part },
        })),
        REFUSED,
        `${REFUSED_WORDS}: input_reference is a JPEG, PNG or WebP image`,
      )
    },
  )
})
