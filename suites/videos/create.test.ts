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
  ACCEPTED,
  createAll,
  createVideo,
  deleteCreated,
  presentVideoModel,
  VIDEO,
  VIDEO_MODELS,
  videoModel,
  type CreateOptions,
  type VideoModelName,
} from './jobs.ts'
import { namedModel } from '../shared/named-models.ts'
import { howToNameId } from '../shared/names.ts'

const api = target()
afterAll(() => deleteCreated(api))

const PARALLEL = 4 // creates in flight at once: quick against a loopback target, polite to a remote one

interface Case {
  what: string
  options: CreateOptions
}

/** Runs the creates and lists those whose status is not in `wanted`, with what they answered. */
async function outcomes(
  cases: readonly Case[],
  wanted: readonly number[],
): Promise<{ wrong: string[]; first?: Exchange }> {
  const results = await createAll(cases, PARALLEL, async (c) => ({ c, made: await createVideo(api, c.options) }))
  const bad = results.filter((r) => !wanted.includes(r.made.ex.status))
  return {
    wrong: bad.map((r) => `${r.c.what}: ${r.made.ex.status} ${r.made.ex.text.slice(0, 160)}`),
    ...(bad[0] ? { first: bad[0].made.ex } : {}),
  }
}

async function expectAll(cases: readonly Case[], wanted: readonly number[], expected: string): Promise<void> {
  const { wrong, first } = await outcomes(cases, wanted)
  if (first !== undefined && wanted.every((s) => s < 300)) expectKeyAccepted(first) // a refused key skips
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
        if (ACCEPTED.includes(made.ex.status) && job)
          observe(
            'video defaults',
            `${c.what} without seconds and size: seconds ${JSON.stringify(job.seconds)}, size ${JSON.stringify(job.size)} (fields not shown in §2.1)`,
          )
      }
      const bad = results.filter((r) => !ACCEPTED.includes(r.made.ex.status))
      if (bad[0]) expectKeyAccepted(bad[0].made.ex)
      expectThat(
        bad.length === 0,
        'status 200 (or 201) for every model of §4.1',
        bad.map((r) => `${r.c.what}: ${r.made.ex.status} ${r.made.ex.text.slice(0, 160)}`),
        bad[0]?.made.ex,
      )
      if (absent.length > 0)
        skipTest(`the target lists no ${absent.join(', ')}: ${howToNameId(absent[0] as string)} for each`)
    },
  )

  check('P2-4.1-model-unknown', 'a model outside the eight is refused with 400 or 404', async () => {
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
    await expectAll(cases, [400, 404], 'status 400 or 404: the model is not one of the video models')
  })

  check('P2-4.1-required-fields', 'a create without model, or without prompt, is refused with 400', async () => {
    await expectAll(
      [
        { what: 'no model', options: { label: 'no-model', fields: { model: undefined } } },
        { what: 'no prompt', options: { label: 'no-prompt', fields: { prompt: undefined } } },
      ],
      [400],
      'status 400: model and prompt are required',
    )
  })

  check('P2-8-prompt-length', 'a prompt of 1000 characters is accepted; 1001 is refused with 400', async () => {
    const max = VIDEO.promptMaxChars
    await expectAll(
      [accepted(`a prompt of ${max} characters`, { label: 'prompt-max', fields: { prompt: text(max) } })],
      ACCEPTED,
      `status 200 (or 201) for a prompt of ${max} characters`,
    )
    await expectAll(
      [
        {
          what: `a prompt of ${max + 1} characters`,
          options: { label: 'prompt-over', fields: { prompt: text(max + 1) } },
        },
      ],
      [400],
      `status 400 for a prompt of ${max + 1} characters`,
    )
  })

  check(
    'P2-8-safety-identifier-length',
    'a safety_identifier of 256 characters is accepted; 257 is refused with 400',
    async () => {
      const max = VIDEO.safetyIdentifierMaxChars
      const long = (n: number) => `gc-${runConfig().runId}-`.padEnd(n, 'x')
      await expectAll(
        [accepted(`safety_identifier of ${max}`, { label: 'sid-max', safetyIdentifier: long(max) })],
        ACCEPTED,
        `status 200 (or 201) for a safety_identifier of ${max} characters`,
      )
      await expectAll(
        [{ what: `safety_identifier of ${max + 1}`, options: { label: 'sid-over', safetyIdentifier: long(max + 1) } }],
        [400],
        `status 400 for a safety_identifier of ${max + 1} characters`,
      )
    },
  )
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
      await expectAll(valid, ACCEPTED, 'status 200 (or 201) for every listed duration')
      const invalid = models.flatMap(({ model }) =>
        ['0', '3', '5', '16'].map((s) => ({
          what: `${model} seconds "${s}"`,
          options: { label: `seconds-${s}`, model, fields: { seconds: s } },
        })),
      )
      await expectAll(invalid, [400], 'status 400 for an unsupported duration (§7)')
    },
  )

  check('P2-4.1-seconds-string', 'seconds sent as a JSON number is refused with 400', async () => {
    await expectAll(
      [{ what: 'seconds 8 (a number)', options: { label: 'seconds-number', fields: { seconds: 8 } } }],
      [400],
      'status 400: seconds is sent as a string',
    )
  })

  check('P2-4.1-seconds-other-models', 'models other than vidA refuse seconds "5" with 400', async () => {
    const models = await targetModels(others)
    await expectAll(
      models.map(({ model }) => ({
        what: `${model} seconds "5"`,
        options: { label: 'seconds-5', model, fields: { seconds: '5' } },
      })),
      [400],
      'status 400 for a duration that is not a multiple of 4',
    )
  })
})

/** Models whose sizes §4.1 lists, with their lists. */
const LISTED = Object.entries(VIDEO.models).flatMap(([model, rule]) =>
  rule.sizes === null ? [] : [{ ref: model, sizes: rule.sizes }],
)
const ALL_LISTED_SIZES = [...new Set(LISTED.flatMap((l) => l.sizes))]
const NO_LIST_SIZE = '1000x1000' // in no list of §4.1
/** No WIDTHxHEIGHT however read; a listed size written otherwise (720X1280) is how a target reads it, not judged. */
const NOT_A_SIZE = ['720x1280x2', 'wide']

describe('sizes (Part 2 §4.1)', () => {
  check(
    'P2-4.1-sizes-listed',
    'every size listed for vidA-2, vidA-2-pro and the vidB preview models is accepted',
    async () => {
      const models = await targetModels(LISTED.map((l) => l.ref))
      await expectAll(
        LISTED.flatMap(({ sizes }, i) => {
          const model = models[i]?.model as string
          return sizes.map((size) => accepted(`${model} ${size}`, { label: `size-${size}`, model, fields: { size } }))
        }),
        ACCEPTED,
        'status 200 (or 201) for every listed size',
      )
    },
  )

  check(
    'P2-4.1-sizes-unlisted',
    "a size outside the model's list, or no WIDTHxHEIGHT at all, is refused with 400",
    async () => {
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
      await expectAll(cases, [400], 'status 400 for a size the model does not list')
    },
  )
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
        ACCEPTED,
        'status 200 (or 201) for each image type of §4.1',
      )
    },
  )

  check(
    'P2-4.1-input-reference-type',
    'an input_reference that is not a JPEG, PNG or WebP image is refused with 400',
    async () => {
      await expectAll(
        notReferenceImages().map(({ type, part }) => ({
          what: `a ${type} input_reference`,
          options: { label: 'reference-other', reference: part },
        })),
        [400],
        'status 400: input_reference is a JPEG, PNG or WebP image',
      )
    },
  )
})
