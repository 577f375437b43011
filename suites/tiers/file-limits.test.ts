/**
 * File limits per tier (Part 1 §8.4): uploads and deletes per minute for every tier whose key is given, and the
 * tier-0 storage quota of 250 MB. Uploads are small (a few bytes) except for the quota check, which streams about
 * 260 MB and so runs only against a target on this machine, or when GATEWAY_LARGE_UPLOADS asks for it. Every file
 * is deleted at the end (deletes are limited too, so they go through the client's 429 backoff).
 *
 * The reset headers of §4.1 describe the request and token buckets, not these limits, so nothing a target announces
 * says when its uploads are at rest: rest is a whole minute without uploads. Where a window of the limit begins is
 * not known either, so the most a burst may get is the bound of any span (a fixed window may admit L at the end of
 * one and L more at the start of the next).
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { expectSetup, expectThat, precondition, is2xx } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { fileLimitsOf } from '../../harness/limits.ts'
import { observe, skipTest } from '../../harness/worker/recorder.ts'
import { check, runConfig } from '../../harness/worker/suite.ts'
import { isLoopback } from '../../harness/setup/target.ts'
import { deleteCreated, deleteFile, upload, type Upload, type UploadSpec } from '../files/uploads.ts'
import { expectAccepted } from '../shared/refusals.ts'
import { reportedTier } from '../shared/tier.ts'
import {
  agreedTier,
  burstCap,
  burstUntil429,
  minuteMs,
  mostAdmittedAnySpan,
  spanMs,
  startPerTier,
  studyFor,
  TIER_SLOTS,
  TIERS_DEFAULTS,
  untilRestMs,
  waitMs,
  type Burst,
  type TierStudies,
  tiersClient,
} from './buckets.ts'

const api = tiersClient()
afterAll(() => deleteCreated(api), 600_000)

const SMALL = { ext: 'txt', contentType: 'text/plain', content: 'tiers' }
/** Largest piece of the quota fill: one upload may carry at most 128 MB (§8.4). */
const PIECE_BYTES = 125_000_000

let serial = 0
const smallUpload = (slot: KeySlot) => async (): Promise<Exchange> => {
  serial += 1
  return (
    await upload(api, {
      label: `tiers-${slot}-${serial}`,
      purpose: 'user_data',
      key: slot,
      file: SMALL,
      retry429: false,
    })
  ).ex
}

/**
 * The key's tier as its model records report it (extra.rate_limits.current, §2.3): the usage endpoints' limit is
 * the usage-limits file's to spend, so this file stays off /user/v1.
 */
async function tierOf(slot: KeySlot): Promise<number | undefined> {
  const list = await api.get('/v1/models', { key: slot })
  const first = isObject(list.json) && Array.isArray(list.json.data) ? list.json.data.find(isObject) : undefined
  return first && typeof first.id === 'string' ? reportedTier(api, first.id, slot) : undefined
}

interface UploadStudy {
  tier: number
  limit: number
  /** From rest; measured again when the first try admitted fewer than the limit (firstTry: what it admitted). */
  burst: Burst & { firstTry?: number }
  /** The deletes burst, or why there is none. */
  deletes: { limit: number; burst: Burst } | string
}

/** A delete of a file id the run never had: a failed request, which still counts toward the limit (§7). */
const unknownDelete = (slot: KeySlot) => async (): Promise<Exchange> => {
  serial += 1
  return api.request({
    method: 'DELETE',
    path: `/v1/files/file-gc-${runConfig().runId}-never-${serial}`,
    key: slot,
    retry429: false,
  })
}

/** A whole minute without calls of the kind, and the margin: every allowed limiter is at rest by then. */
const wholeMinute = (): number => minuteMs() + TIERS_DEFAULTS.marginMs

let studies: TierStudies<UploadStudy> = new Map()

async function study(slot: KeySlot): Promise<UploadStudy | string> {
  const tier = agreedTier(slot, await tierOf(slot))
  if (typeof tier === 'string') return tier
  const limit = fileLimitsOf(tier)?.uploadsPerMinute
  if (limit === undefined) return `§8.4 gives no uploads per minute for tier ${tier}`
  const cap = burstCap(runConfig().baseUrl)
  if (limit + 1 > cap)
    return `tier ${tier} allows ${limit} uploads per minute, above the burst cap of ${cap} calls for this target`
  // Past what any limiter admits in a burst of any phase (2L + L·T/minute), so that no limit is seen as a 429.
  const max = Math.min(cap, 3 * limit + 2)
  // Drain to the 429, rest a whole minute, then count from rest.
  const drain = await burstUntil429(smallUpload(slot), max)
  await waitMs(Math.max(untilRestMs(drain.refused ?? drain.all.at(-1)!), wholeMinute()))
  let burst: UploadStudy['burst'] = await burstUntil429(smallUpload(slot), max)
  // Fewer than the limit from rest may be another client's uploads in the same minute: measured once more.
  if (burst.refused && burst.admitted.length < limit) {
    await waitMs(Math.max(untilRestMs(burst.refused), wholeMinute()))
    burst = { ...(await burstUntil429(smallUpload(slot), max)), firstTry: burst.admitted.length }
  }
  const deleteLimit = fileLimitsOf(tier)?.deletesPerMinute
  let deletes: UploadStudy['deletes']
  if (deleteLimit === undefined) deletes = `§8.4 gives no deletes per minute for tier ${tier}`
  else if (deleteLimit + 1 > cap)
    deletes = `tier ${tier} allows ${deleteLimit} deletes per minute, above the burst cap of ${cap} calls for this target`
  else
    deletes = {
      limit: deleteLimit,
      burst: await burstUntil429(unknownDelete(slot), Math.min(cap, 3 * deleteLimit + 2)),
    }
  const result: UploadStudy = { tier, limit, burst, deletes }
  // Uploads are at rest only after a whole minute without them (see the head of this file).
  if (slot === 'tier0') quotaStart = waitMs(Math.max(untilRestMs(burst.refused ?? burst.all.at(-1)!), wholeMinute()))
  return result
}

/** The files the tier-0 account stores, as one list shows them. */
async function tier0Files(): Promise<Array<Record<string, unknown>>> {
  const list = await api.get('/v1/files', { key: 'tier0', query: { limit: 10_000 } })
  expectSetup(list, '2xx', "the tier-0 account's file list, to see what it stores")
  return isObject(list.json) && Array.isArray(list.json.data) ? list.json.data.filter(isObject) : []
}

/** The id of the file an upload stored: the one it answered, or one listed under its name although not answered. */
async function storedId(up: Upload): Promise<string | undefined> {
  if (up.id !== undefined) return up.id
  const listed = (await tier0Files()).find((f) => f.filename === up.filename)
  return typeof listed?.id === 'string' ? listed.id : undefined
}

/** The quota check waits for tier 0's upload window to be fresh again after the uploads study. */
let quotaStart: Promise<void> | undefined

/**
 * Tier 0's uploads for the quota check, paced at its uploads per minute so that the check judges storage and never
 * the uploads limit: a 429 there skips, naming the rate limit.
 */
function pacedUploads(limit: number): (spec: Omit<UploadSpec, 'key'>, what: string) => Promise<Upload> {
  const gapMs = minuteMs() / limit + TIERS_DEFAULTS.marginMs
  let lastEnd = Number.NEGATIVE_INFINITY
  return async (spec, what) => {
    await waitMs(lastEnd + gapMs - Date.now())
    const up = await upload(api, { ...spec, key: 'tier0' })
    lastEnd = Date.now()
    if (up.ex.status === 429)
      skipTest(`rate limited: ${what} answered 429 after backoff; tier 0 allows ${limit} uploads a minute`)
    return up
  }
}

beforeAll(() => {
  studies = startPerTier(api, study)
})

const options = { timeout: TIERS_DEFAULTS.testTimeoutMs }

describe.each(TIER_SLOTS.map((slot) => [slot]))('file limits with the %s key (Part 1 §8.4)', (slot) => {
  check(
    'P1-8.4-uploads-per-minute',
    `${slot}: from rest, at least the tier's uploads per minute and at most L + L·T/minute`,
    async () => {
      const { burst, limit, tier } = await studyFor(studies, slot)
      for (const ex of burst.admitted) expectSetup(ex, [200, 201], 'a small user_data upload')
      const most = mostAdmittedAnySpan(limit, burst.all)
      const what = `after a whole minute without uploads, at least ${limit} uploads accepted (tier ${tier}) and at most ${most}: twice the limit, a window's end and the next one's start, plus what ${minuteMs() / 1000} s minutes refill over ${(spanMs(burst.all) / 1000).toFixed(2)} s`
      const seen = `${burst.admitted.length} accepted ${burst.refused ? 'before the 429' : 'and no 429'}${burst.firstTry === undefined ? '' : ` (${burst.firstTry} the first time, measured again after a whole minute)`}`
      expectThat(burst.admitted.length <= most, what, seen, burst.refused ?? burst.all.at(-1))
      expectThat(burst.admitted.length >= limit, what, seen, burst.refused ?? burst.all.at(-1))
      if (!burst.refused)
        observe(
          'uploads per minute',
          `no 429 in ${burst.all.length} uploads over ${(spanMs(burst.all) / 1000).toFixed(1)} s`,
        )
    },
    options,
  )

  check(
    'P1-8.4-deletes-per-minute',
    `${slot}: deletes are admitted at most L + L + L·T/minute before a 429`,
    async () => {
      const { deletes, tier } = await studyFor(studies, slot)
      if (typeof deletes === 'string') skipTest(deletes)
      const { burst, limit } = deletes
      const most = mostAdmittedAnySpan(limit, burst.all)
      expectThat(
        burst.admitted.length <= most,
        `at most ${most} deletes admitted (tier ${tier}: ${limit} per minute, twice that where a window ends within the burst, plus what ${minuteMs() / 1000} s minutes refill over ${(spanMs(burst.all) / 1000).toFixed(2)} s); deletes of unknown ids count as failed requests (§7)`,
        burst.refused
          ? `${burst.admitted.length} admitted before the 429`
          : `${burst.admitted.length} admitted and no 429`,
        burst.refused ?? burst.all.at(-1),
      )
      observe(
        'deletes of unknown files',
        `a file id never issued answered ${burst.all[0]?.status ?? 'nothing'}; ${burst.admitted.length} of ${burst.all.length} deletes admitted before ${burst.refused ? 'the 429' : 'the end'}`,
      )
    },
    options,
  )
})

describe('storage quota (Part 1 §8.4)', () => {
  check(
    'P1-8.4-storage-quota',
    'tier 0: uploads within 250 MB are accepted, refused once storage is full, and accepted again after deletes',
    async () => {
      if (!api.hasKey('tier0')) skipTest('no key for tier0: set GATEWAY_API_KEY_TIER0')
      const { baseUrl, largeUploads } = runConfig()
      if (!isLoopback(baseUrl) && !largeUploads)
        skipTest(
          'filling 250 MB of storage runs against a remote target only when asked for: set GATEWAY_LARGE_UPLOADS=1',
        )
      const s = await studies.get('tier0')!
      precondition(
        typeof s !== 'string' && s.tier === 0,
        'P1-2.3-rate-limits-current-per-tier',
        'the tier0 key does not report tier 0',
      )
      // Streaming hundreds of MB while other tiers burst slows every call of a busy machine: wait for the bursts.
      await Promise.all([...studies.values()].map((running) => running.catch(() => undefined)))
      await quotaStart
      const quota = fileLimitsOf(0)!.maxStorageBytes
      const paced = pacedUploads(s.limit)
      // 250 MB read as MiB: the reference does not say which, so only storage past both is judged full.
      const binaryQuota = (quota / 1_000_000) * 1_048_576
      // Whatever the account already stores counts: fill exactly up to the quota.
      const stored = (await tier0Files()).reduce((sum, f) => sum + (typeof f.bytes === 'number' ? f.bytes : 0), 0)
      let left = quota - stored
      const pieces: string[] = []
      let n = 0
      while (left > 0) {
        const size = Math.min(PIECE_BYTES, left)
        n += 1
        const up = await paced(
          {
            label: `quota-${n}`,
            purpose: 'others',
            file: { ext: 'bin', contentType: 'application/octet-stream', content: { size } },
            timeoutMs: 600_000,
          },
          `piece ${n} of the fill`,
        )
        expectAccepted([[`piece ${n}`, up.ex]], `an upload that keeps tier 0 within its ${quota} bytes`)
        pieces.push(up.id!)
        left -= size
      }
      // Between the readings: recorded, then removed if it was stored.
      const band = await paced({ label: 'quota-band', purpose: 'user_data', file: SMALL }, 'an upload at the quota')
      const bandId = await storedId(band)
      if (bandId !== undefined) await deleteFile(api, bandId, 'tier0')
      observe(
        'storage quota reading',
        `with ${quota} bytes stored, a small upload answered ${band.ex.status}${bandId === undefined ? ' and was not stored' : ' and was stored'}: the target reads 250 MB as ${bandId === undefined ? '250 × 10^6 bytes' : '250 × 2^20 bytes'}`,
      )
      // An upload that takes storage past both readings: "when storage is full, uploads are blocked" does not say
      // whether one that would overflow is blocked before storage is full, so its answer is recorded, not judged.
      const overBytes = binaryQuota - quota + 1
      const over = await paced(
        {
          label: 'quota-over',
          purpose: 'others',
          file: { ext: 'bin', contentType: 'application/octet-stream', content: { size: overBytes } },
          timeoutMs: 600_000,
        },
        'an upload past the quota',
      )
      const overId = await storedId(over)
      observe(
        'storage quota overflow',
        `with ${quota} bytes stored, an upload of ${overBytes} bytes more (past ${binaryQuota}) answered ${over.ex.status} and was ${overId === undefined ? 'not stored: the target blocks an upload that would overflow' : 'stored: the target blocks uploads once storage is full'}`,
      )
      // Blocked: not a 2xx, and nothing stored. Storage is full under either reading once the overflow was stored;
      // one the target would not store was blocked already.
      let blocked = { up: over, id: overId }
      if (overId !== undefined) {
        const full = await paced(
          { label: 'quota-full', purpose: 'user_data', file: SMALL },
          'an upload with storage full',
        )
        blocked = { up: full, id: await storedId(full) }
        await deleteFile(api, overId, 'tier0')
      }
      if (blocked.id !== undefined) await deleteFile(api, blocked.id, 'tier0')
      const status = blocked.up.ex.status
      observe('storage full', `an upload with storage full answered ${status}`)
      expectThat(
        !is2xx(blocked.up.ex) && blocked.id === undefined,
        overId === undefined
          ? `an upload of ${overBytes} bytes more with ${quota} stored blocked: not a 2xx, and not stored (it may be refused or taken, but not half-taken)`
          : `an upload with ${quota + overBytes} bytes stored, past ${binaryQuota} bytes and full under either reading, blocked: not a 2xx, and not stored`,
        `status ${status}, ${blocked.id === undefined ? 'not listed' : `listed as ${blocked.id}`}`,
        blocked.up.ex,
      )
      await deleteFile(api, pieces[0]!)
      const again = await paced({ label: 'quota-again', purpose: 'user_data', file: SMALL }, 'an upload after a delete')
      expectAccepted([['an upload after a delete', again.ex]], 'an upload accepted again after a file was deleted')
    },
    { timeout: 1_200_000 },
  )
})
