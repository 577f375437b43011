/**
 * Files (Part 1 §2.4, §4.4, §7): uploads with each purpose, the file object, the expiration policy, the list with
 * its order, limit, cursor and purpose filter, retrieve and delete. One file keeps the uploads few (tier 2 allows
 * 50 a minute, §8.4): the seven purpose uploads are shared by the tests that read files. Every file the run
 * creates is deleted in afterAll.
 */
import { afterAll, describe } from 'vitest'
import {
  expectEach,
  expectKeyAccepted,
  expectSchema,
  expectSetup,
  expectStatus,
  expectThat,
  precondition,
  is2xx,
} from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { callWindow } from '../../harness/report/audit.ts'
import { check, runConfig, SUITE_DEFAULTS, target } from '../../harness/worker/suite.ts'
import { expectAccepted, expectRefusals } from '../shared/refusals.ts'
import { roomiestKey, slotTier } from '../shared/tier.ts'
import { minuteMs } from '../tiers/buckets.ts'
import { fileLimitsOf } from '../../harness/limits.ts'
import { DEFAULTS } from '../../harness/setup/config.ts'
import { EXPIRING, EXPIRY_SECONDS, filesReading, purposeFixture } from './fixture.ts'
import {
  fullList,
  fullListHolding,
  listFiles,
  listHolding,
  LIMIT_RANGE,
  MAX_LIMIT,
  orderBreaks,
  pageThrough,
  listWithout,
  retrievedUntilGone,
  type Paged,
} from './listing.ts'
import { deleteCreated, deleteFile, expectUploadRefusal, expectUploadStatus, upload } from './uploads.ts'

const api = target()
const fixture = purposeFixture(api)

/** The list paged with `after` in both orders, two files a page, once for the cursor and the envelope checks. */
const paging = memo(async () => {
  const mine = (await filesReading(fixture, [])).map((u) => u.id as string)
  const result: Array<{ order: 'asc' | 'desc'; ours: string[]; paged: Paged }> = []
  for (const order of ['asc', 'desc'] as const) {
    const full = await fullListHolding(api, order, mine)
    const ours = full.ids.filter((id) => mine.includes(id))
    precondition(ours.length >= 3, 'P1-4.4-purposes', `fewer than three of the run's files are listed (${ours.length})`)
    // Enough pages to pass the last of the run's files, and a few more to reach the end of a small list.
    const span = full.ids.indexOf(ours.at(-1) as string) - full.ids.indexOf(ours[0] as string) + 1
    let paged = await pageThrough(api, order, full, ours, 2, Math.ceil(span / 2) + 3)
    for (let again = 0; paged === 'cursor-gone' && again < 3; again += 1)
      paged = await pageThrough(api, order, await fullList(api, order), ours, 2, Math.ceil(span / 2) + 3)
    precondition(paged !== 'cursor-gone', 'P1-4.4-list-cursor', "other clients' files kept vanishing under the cursor")
    result.push({ order, ours, paged })
  }
  return result
})

afterAll(() => deleteCreated(api))

const CLOCK_TOLERANCE_S = 300 // created_at may differ from our clock by clock skew; 5 minutes is generous
const DEFAULT_LIMIT_PROBE = 21 // files: one more than the common default page of 20
const TINY = { ext: 'txt', contentType: 'text/plain', content: 'gc' }
const COMPARED = ['id', 'bytes', 'created_at', 'expires_at', 'filename', 'purpose'] as const

/** The key the default-limit check uploads with: the most uploads a minute (§8.4). */
const roomy = roomiestKey(api)
/**
 * Its uploads waited out at its tier's rate (the main key's tier is not known: the lowest's, 3 a minute), a minute
 * more for where a window began, the settle bound to list them, and the usual time for the rest.
 */
const DEFAULT_LIMIT_TIMEOUT_MS =
  (Math.ceil(DEFAULT_LIMIT_PROBE / (fileLimitsOf(slotTier(roomy) ?? 0)?.uploadsPerMinute ?? 1)) + 1) * minuteMs() +
  (runConfig().settleMs ?? DEFAULTS.settleMs) +
  SUITE_DEFAULTS.testTimeoutMs

/** The form of expires_after the target takes: the refusals are judged in it, so that a 400 means the value. */
async function acceptedExpiryForm() {
  const { expiryForm } = await fixture()
  precondition(expiryForm !== undefined, 'P1-2.4-expires-at', 'no form of expires_after was accepted')
  return expiryForm
}

describe('upload and the file object (Part 1 §2.4, §4.4)', () => {
  check(
    'P1-4.4-purposes',
    'an upload with each of the seven purposes, with content that suits it, is accepted',
    async () => {
      const { uploads } = await fixture()
      // §4.4: assistants "only for hosted retrieval surfaces when enabled": its answer is recorded, not judged.
      const assistants = uploads.find((u) => u.purpose === 'assistants')
      if (assistants)
        observe(
          'assistants files',
          `an upload with purpose assistants answered ${assistants.ex.status}${is2xx(assistants.ex) ? '' : `: ${assistants.ex.text.slice(0, 200)}`}`,
        )
      const refused = uploads.filter((u) => u.purpose !== 'assistants' && !is2xx(u.ex))
      if (refused[0]) expectKeyAccepted(refused[0].ex)
      expectThat(
        refused.length === 0,
        'a 2xx for every purpose but assistants',
        refused.map((u) => `purpose ${u.purpose}: ${u.ex.status} ${u.ex.text.slice(0, 200)}`),
        refused[0]?.ex,
      )
    },
  )

  check(
    'P1-2.4-file-object',
    'uploads, a retrieve and the list answer file objects with the fields of §2.4',
    async () => {
      const { accepted } = await fixture()
      precondition(accepted.length > 0, 'P1-4.4-purposes', 'no upload was accepted')
      for (const u of accepted) expectSchema(u.ex, 'files/file.json')
      const retrieved = await api.get(`/v1/files/${encodeURIComponent(accepted[0]?.id as string)}`)
      expectAccepted([['GET /v1/files/{file_id}', retrieved]], 'a file the run uploaded')
      expectSchema(retrieved, 'files/file.json')
      const list = await listFiles(api, { limit: MAX_LIMIT })
      expectEach(list.ex, 'files/file.json', list.items, '/data')
    },
  )

  check('P1-2.4-file-fields', 'bytes, filename and purpose describe the file that was sent', async () => {
    const problems: string[] = []
    for (const u of await filesReading(fixture, ['bytes', 'filename', 'purpose'])) {
      const file = u.file as Record<string, unknown>
      if (file.bytes !== u.body.fileBytes)
        problems.push(`${u.purpose}: bytes ${String(file.bytes)}, sent ${u.body.fileBytes}`)
      if (file.filename !== u.filename)
        problems.push(`${u.purpose}: filename ${JSON.stringify(file.filename)}, sent ${JSON.stringify(u.filename)}`)
      if (file.purpose !== u.purpose) problems.push(`${u.purpose}: purpose ${JSON.stringify(file.purpose)}`)
    }
    expectThat(problems.length === 0, 'the size, name and purpose that were uploaded', problems)
  })

  check('P1-2.4-created-at-now', 'created_at is the Unix second of the upload, give or take clock skew', async () => {
    for (const u of await filesReading(fixture, ['created_at'])) {
      const createdAt = (u.file as Record<string, unknown>).created_at as number
      // The target's clock (its Date header) decides when the upload happened, as for svc-request-id's time.
      const window = callWindow(u.ex.excerpt)
      const at = Math.floor(window.from / 1000)
      expectThat(
        Math.abs(createdAt - at) <= CLOCK_TOLERANCE_S,
        `created_at within ${CLOCK_TOLERANCE_S} s of ${at} (${window.clock} at the upload)`,
        `created_at ${createdAt}`,
        u.ex,
      )
    }
  })

  check(
    'P1-2.4-expires-at',
    'with expires_after { anchor: created_at, seconds }, expires_at is created_at plus seconds',
    async () => {
      const f = await fixture()
      const u = (await filesReading(fixture, ['created_at', 'expires_at'])).find((v) => v.purpose === EXPIRING)
      precondition(u !== undefined, 'P1-4.4-purposes', `the ${EXPIRING} upload was refused`)
      expectThat(
        f.expiryForm !== undefined,
        'an upload with expires_after { anchor: created_at, seconds } accepted, as fields or as one JSON part',
        f.expiryTries,
      )
      observe(
        'expires_after form',
        `the target took expires_after as ${f.expiryForm === 'json' ? 'one JSON part' : 'the fields expires_after[anchor] and expires_after[seconds]'}`,
      )
      const { created_at: createdAt, expires_at: expiresAt } = u.file as Record<string, number | null>
      expectThat(
        expiresAt === (createdAt as number) + EXPIRY_SECONDS,
        `expires_at ${(createdAt as number) + EXPIRY_SECONDS} (created_at ${createdAt} + ${EXPIRY_SECONDS})`,
        `expires_at ${String(expiresAt)}`,
        u.ex,
      )
    },
  )

  check(
    'P1-2.4-expires-null',
    'without expires_after, expires_at is null (batch files follow the provider policy)',
    async () => {
      const { expiryForm } = await fixture()
      for (const u of await filesReading(fixture, ['expires_at'])) {
        const expiresAt = (u.file as Record<string, unknown>).expires_at
        if (u.purpose === EXPIRING && expiryForm !== undefined) continue
        if (u.purpose === 'batch') {
          observe(
            'batch file expiry',
            `a batch file uploaded without expires_after has expires_at ${String(expiresAt)}`,
          )
          continue
        }
        expectThat(
          expiresAt === null,
          `expires_at null for the ${u.purpose} file uploaded without expires_after`,
          `expires_at ${String(expiresAt)}`,
          u.ex,
        )
      }
    },
  )

  check('P1-2.4-expires-anchor', 'an expires_after anchor other than created_at is refused', async () => {
    const expiryForm = await acceptedExpiryForm()
    const up = await upload(api, {
      label: 'anchor',
      purpose: 'user_data',
      expiresAfter: { anchor: 'last_active_at', seconds: String(EXPIRY_SECONDS) },
      expiryForm,
    })
    await expectUploadRefusal(api, up, 'only created_at is supported')
  })

  check('P1-2.4-expires-anchor-required', 'an expires_after without anchor is refused with 400', async () => {
    const expiryForm = await acceptedExpiryForm()
    const up = await upload(api, {
      label: 'no-anchor',
      purpose: 'user_data',
      expiresAfter: { seconds: String(EXPIRY_SECONDS) },
      expiryForm,
    })
    await expectUploadStatus(api, up, 400, 'anchor is required')
  })

  check('P1-2.4-expires-seconds', 'expires_after without seconds is refused with 400', async () => {
    const expiryForm = await acceptedExpiryForm()
    const missing = await upload(api, {
      label: 'no-seconds',
      purpose: 'user_data',
      expiresAfter: { anchor: 'created_at' },
      expiryForm,
    })
    await expectUploadStatus(api, missing, 400, 'seconds is required')
  })

  check('P1-2.4-expires-seconds-refused', 'expires_after with seconds that are not an integer is refused', async () => {
    const expiryForm = await acceptedExpiryForm()
    const fraction = await upload(api, {
      label: 'fraction-seconds',
      purpose: 'user_data',
      expiresAfter: { anchor: 'created_at', seconds: `${EXPIRY_SECONDS}.5` },
      expiryForm,
    })
    await expectUploadRefusal(api, fraction, 'seconds is an integer')
  })

  check('P1-4.4-purpose-unknown', 'an upload with a purpose outside the seven is refused', async () => {
    // An upload of a listed purpose served first: else a refusal here says nothing of the purpose.
    const { accepted } = await fixture()
    precondition(
      accepted.some((u) => u.purpose === 'user_data'),
      'P1-4.4-purposes',
      'the user_data upload was refused',
    )
    const up = await upload(api, { label: 'unknown-purpose', purpose: 'gc-no-such-purpose' })
    await expectUploadRefusal(api, up, 'purpose is one of the seven of §4.4')
  })

  check('P1-4.4-required-fields', 'an upload without purpose, or without a file, is refused with 400', async () => {
    const noPurpose = await upload(api, { label: 'no-purpose' })
    await expectUploadStatus(api, noPurpose, 400, 'purpose is required')
    const noFile = await upload(api, { label: 'no-file', purpose: 'user_data', file: null })
    await expectUploadStatus(api, noFile, 400, 'file is required')
  })
})

describe('the file list (Part 1 §2.4, §4.4)', () => {
  check('P1-2.4-list-envelope', 'GET /v1/files answers object list, data, first_id, last_id and has_more', async () => {
    await fixture()
    const ex = await api.get('/v1/files')
    expectAccepted([['GET /v1/files', ex]], 'the file list')
    expectSchema(ex, 'files/list.json')
  })

  check('P1-4.4-list-order', 'order=asc and order=desc sort by created_at, and the default is desc', async () => {
    const ours = (await filesReading(fixture, ['created_at'])).map((u) => ({
      id: u.id as string,
      createdAt: (u.file as Record<string, unknown>).created_at as number,
    }))
    precondition(
      new Set(ours.map((o) => o.createdAt)).size > 1,
      'P1-2.4-created-at-now',
      "the run's files, uploaded more than a second apart, share one created_at",
    )
    const asc = await fullListHolding(
      api,
      'asc',
      ours.map((o) => o.id),
    )
    const missing = ours.filter((o) => !asc.ids.includes(o.id)).map((o) => o.id)
    expectThat(missing.length === 0, 'every file of the run listed', `not listed: ${missing.join(', ')}`, asc.ex)
    const desc = await fullList(api, 'desc')
    const byDefault = await listFiles(api, { limit: MAX_LIMIT })
    for (const [list, order, what] of [
      [asc, 'asc', 'order=asc'],
      [desc, 'desc', 'order=desc'],
      [byDefault, 'desc', 'no order (default desc)'],
    ] as const) {
      const breaks = orderBreaks(list, order)
      expectThat(
        breaks.length === 0,
        `${what}: created_at ${order === 'asc' ? 'ascending' : 'descending'}`,
        breaks,
        list.ex,
      )
    }
  })

  check('P1-4.4-list-order-values', 'an order other than asc or desc is refused', async () => {
    // order=desc served first: else a refusal here says nothing of the value.
    const desc = await api.get('/v1/files', { query: { order: 'desc', limit: 1 } })
    precondition(is2xx(desc), 'P1-4.4-list-order', `order=desc answered ${desc.status}`)
    const other = await api.get('/v1/files', { query: { order: 'ascending', limit: 1 } })
    expectRefusals([['order=ascending', other]], 'order is asc or desc')
  })

  check('P1-4.4-list-limit', 'limit caps the number of files listed', async () => {
    await filesReading(fixture, [])
    // limit=1, an edge of its range, is P1-4.4-list-limit-range's to judge.
    for (const limit of [2, 3]) {
      const list = await listFiles(api, { limit })
      expectThat(
        list.ids.length <= limit,
        `at most ${limit} file(s) with limit=${limit}`,
        `${list.ids.length} files`,
        list.ex,
      )
    }
  })

  check(
    'P1-4.4-list-limit-default',
    "without limit, the list is not cut short: every one of the run's 21 or more files is listed",
    async () => {
      // More files of the run's than the common default of 20: the fixture's where they are this key's, and some
      // as small as can be, uploaded with the key that has the most uploads a minute (§8.4).
      const mine = roomy === 'main' ? (await filesReading(fixture, [])).map((u) => u.id as string) : []
      const added: string[] = []
      for (let n = 0; mine.length < DEFAULT_LIMIT_PROBE; n += 1) {
        const up = await upload(api, { label: `many-${n}`, purpose: 'user_data', file: TINY, key: roomy })
        if (up.ex.status === 429)
          skipTest(
            `the ${roomy} key's uploads per minute (§8.4) ran out before ${DEFAULT_LIMIT_PROBE} files were stored`,
          )
        expectSetup(up.ex, '2xx', `a small user_data upload with the ${roomy} key`)
        precondition(up.id !== undefined, 'P1-2.4-file-object', 'an upload answered no file id')
        mine.push(up.id)
        added.push(up.id)
      }
      const all = await fullListHolding(api, 'desc', mine, roomy)
      const byDefault = await listFiles(api, {}, roomy)
      for (const id of added) await deleteFile(api, id)
      // What has_more says of this page is P1-4.4-list-cursor-envelope's (a SHOULD) to judge.
      const missing = mine.filter((id) => all.ids.includes(id) && !byDefault.ids.includes(id))
      expectThat(
        missing.length === 0,
        `every one of the run's ${mine.length} files listed without limit (default 10000), as with limit=${MAX_LIMIT}`,
        `${byDefault.ids.length} files listed; ${missing.length} of the run's missing: ${missing.slice(0, 5).join(', ')}`,
        byDefault.ex,
      )
    },
    { timeout: DEFAULT_LIMIT_TIMEOUT_MS },
  )

  const { min, max } = LIMIT_RANGE
  check('P1-4.4-list-limit-range', `limit=${min} and limit=${max} are accepted`, async () => {
    const answers: Array<[string, Exchange]> = []
    for (const limit of [min, max]) answers.push([`limit=${limit}`, await api.get('/v1/files', { query: { limit } })])
    expectAccepted(answers, `limit is ${min} to ${max}`)
  })

  check('P1-4.4-list-limit-refused', `limit ${min - 1}, ${max + 1} and 1.5 are refused`, async () => {
    // An edge P1-4.4-list-limit-range judges served first: else a refusal here says nothing of the value.
    const valid = await api.get('/v1/files', { query: { limit: min } })
    precondition(is2xx(valid), 'P1-4.4-list-limit-range', `limit=${min} answered ${valid.status}`)
    const answers: Array<[string, Exchange]> = []
    for (const limit of [String(min - 1), String(max + 1), '1.5'])
      answers.push([`limit=${limit}`, await api.get('/v1/files', { query: { limit } })])
    expectRefusals(answers, `limit is an integer from ${min} to ${max}`)
  })

  check('P1-4.4-list-cursor', 'after pages through the list in both orders without repeats or gaps', async () => {
    for (const { order, ours, paged } of await paging()) {
      const repeated = [...new Set(paged.seen.filter((id, i) => paged.seen.indexOf(id) !== i))]
      expectThat(
        repeated.length === 0,
        `order=${order}: no file on two pages`,
        `repeated: ${repeated.join(', ')}`,
        paged.last.ex,
      )
      const oursSeen = paged.seen.filter((id) => ours.includes(id))
      expectThat(
        JSON.stringify(oursSeen) === JSON.stringify(ours),
        `order=${order}: the run's files each once, in list order (${ours.join(', ')})`,
        `paged: ${oursSeen.join(', ')}`,
        paged.last.ex,
      )
    }
  })

  check(
    'P1-4.4-list-cursor-envelope',
    'while paging, first_id, last_id and has_more tell the truth about the page',
    async () => {
      for (const { order, paged } of await paging()) {
        const first = paged.envelope[0]
        expectThat(
          first === undefined,
          `order=${order}: first_id and last_id naming the first and last file, has_more true while files follow`,
          paged.envelope.map((e) => e.problem),
          first?.ex,
        )
        // Past the oldest file nothing new can arrive, so the end of a desc list is stable enough to judge.
        if (order === 'desc' && paged.last.hasMore === false && paged.last.ids.length > 0) {
          const cursor = paged.last.ids.at(-1) as string
          const beyond = await listFiles(api, { order, limit: 2, after: cursor })
          // The cursor's own file listed again is the cursor's fault (P1-4.4-list-cursor), not the envelope's.
          const after = beyond.ids.filter((id) => id !== cursor)
          expectThat(
            after.length === 0,
            'no files after the page that said has_more false',
            `${after.length} files: ${after.join(', ')}`,
            beyond.ex,
          )
        }
      }
    },
  )

  check('P1-4.4-list-purpose', 'purpose filters the list', async () => {
    const vision = (await filesReading(fixture, [])).find((u) => u.purpose === 'vision')
    precondition(vision !== undefined, 'P1-4.4-purposes', 'the vision upload was refused')
    const list = await listHolding(api, { purpose: 'vision', limit: MAX_LIMIT }, [vision.id as string])
    const others = list.items
      .filter((item) => item.purpose !== 'vision')
      .map((item) => `${String(item.id)}: ${String(item.purpose)}`)
    expectThat(others.length === 0, 'only files with purpose vision', others, list.ex)
    expectThat(
      list.ids.includes(vision.id as string),
      `the run's vision file ${vision.id} listed`,
      list.ids.join(', ') || 'no files',
      list.ex,
    )
  })
})

describe('retrieve and delete (Part 1 §4.4, §7)', () => {
  check('P1-4.4-retrieve', 'GET /v1/files/{file_id} answers the file object the upload answered', async () => {
    const { accepted } = await fixture()
    precondition(accepted.length > 0, 'P1-4.4-purposes', 'no upload was accepted')
    for (const u of accepted) {
      const ex = await api.get(`/v1/files/${encodeURIComponent(u.id as string)}`)
      expectAccepted([['GET /v1/files/{file_id}', ex]], `the ${u.purpose} file the run uploaded`)
      const body = ex.json
      const differences = COMPARED.flatMap((field) => {
        const got = isObject(body) ? body[field] : undefined
        const uploaded = (u.file as Record<string, unknown>)[field]
        return JSON.stringify(got) === JSON.stringify(uploaded)
          ? []
          : [`${field}: upload ${JSON.stringify(uploaded)}, retrieve ${JSON.stringify(got)}`]
      })
      expectThat(differences.length === 0, `the ${u.purpose} file as the upload described it`, differences, ex)
    }
    // §8.4 limits downloads per minute but shows no route: what the usual one answers is recorded, not judged.
    const sample = accepted[0] as (typeof accepted)[number]
    const content = await api.get(`/v1/files/${encodeURIComponent(sample.id as string)}/content`, {
      headers: { accept: '*/*' },
    })
    observe(
      'file download',
      `GET /v1/files/{file_id}/content answered ${content.status} (${content.header('content-type') ?? 'no content-type'}, ${content.excerpt.bodyBytes ?? 0} bytes; the ${sample.purpose} file has ${sample.body.fileBytes})`,
    )
  })

  check(
    'P1-7-file-unknown-404',
    'retrieving or deleting a file id the target never issued is refused with 400 or 404',
    async () => {
      // Ids are opaque (§9.2): an id the target never issued may be invalid (400) as well as missing (404).
      const id = `file-gc-${runConfig().runId}-missing`
      const retrieved = await api.get(`/v1/files/${encodeURIComponent(id)}`)
      expectKeyAccepted(retrieved)
      expectStatus(retrieved, [400, 404], 'a file id that was never issued')
      const deleted = await api.request({ method: 'DELETE', path: `/v1/files/${encodeURIComponent(id)}` })
      expectStatus(deleted, [400, 404], 'a file id that was never issued')
      observe(
        'unknown file id',
        `a file id never issued answered ${retrieved.status} (retrieve) and ${deleted.status} (delete)`,
      )
    },
  )

  check('P1-5.1-key-required', 'the files routes answer 401 to a call without a key', async () => {
    // An id the target issued, to this check alone (a DELETE served without a key would take it): for one it never
    // issued, its own refusal (400, 404) may come first.
    const own = await upload(api, { label: 'keyed', purpose: 'user_data', file: TINY })
    expectSetup(own.ex, '2xx', 'a small user_data upload, the file the unkeyed calls name')
    precondition(own.id !== undefined, 'P1-2.4-file-object', 'the upload answered no file id')
    const path = `/v1/files/${encodeURIComponent(own.id)}`
    const unkeyed: Array<[string, Exchange]> = [
      ['GET /v1/files', await api.get('/v1/files', { key: null })],
      ['GET /v1/files/{file_id}', await api.get(path, { key: null })],
      ['DELETE /v1/files/{file_id}', await api.request({ method: 'DELETE', path, key: null })],
      ['POST /v1/files', (await upload(api, { label: 'no-key', purpose: 'user_data', key: null })).ex],
    ]
    const wrong = unkeyed.filter(([, ex]) => ex.status !== 401).map(([what, ex]) => `${what}: ${ex.status}`)
    expectThat(
      wrong.length === 0,
      'status 401 for each files route called without a key',
      wrong,
      unkeyed.find(([, ex]) => ex.status !== 401)?.[1],
    )
  })

  // Last in the file: it deletes one of the shared files.
  check(
    'P1-4.4-delete',
    'after DELETE /v1/files/{file_id} the file is neither listed nor retrievable (404)',
    async () => {
      const { accepted } = await fixture()
      const victim = accepted.at(-1)
      precondition(victim !== undefined, 'P1-4.4-purposes', 'no upload was accepted')
      const id = victim.id as string
      const deleted = await deleteFile(api, id)
      expectAccepted([['DELETE /v1/files/{file_id}', deleted]], 'the file is deleted')
      observe(
        'file delete answer',
        `DELETE /v1/files/{file_id} answered ${deleted.status}: ${deleted.text.slice(0, 300) || '(no body)'}`,
      )
      // A delete may finish after its answer (a 202 says so): retrieve and list are each judged once the file is
      // gone from them, or at the settle bound, both counted from the delete's answer.
      const [after, list] = await Promise.all([retrievedUntilGone(api, id), listWithout(api, { limit: MAX_LIMIT }, id)])
      expectThat(!list.ids.includes(id), `${id} no longer listed`, 'still listed', list.ex)
      expectThat(!is2xx(after), `${id} no longer retrievable`, `status ${after.status}`, after)
      // The target issued this id, so it is not merely invalid: it names a missing resource.
      expectStatus(after, 404, 'a file the target issued and the run deleted is a missing resource')
    },
  )
})
