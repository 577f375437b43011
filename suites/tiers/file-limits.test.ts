/**
 * File limits per tier (Part 1 §8.4): uploads per minute for every tier whose key is given, and the tier-0 storage
 * quota of 250 MB. Uploads are small (a few bytes) except for the quota check, which streams about 250 MB and so
 * runs only against a target on this machine, or when GATEWAY_LARGE_UPLOADS asks for it. Every file is deleted at
 * the end (deletes are limited too, so they go through the client's 429 backoff).
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { expectStatus, expectThat, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/config.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { fileLimitsOf } from '../../harness/limits.ts'
import { skipTest } from '../../harness/recorder.ts'
import { check, runConfig } from '../../harness/suite.ts'
import { isLoopback } from '../../harness/target.ts'
import { deleteCreated, deleteFile, upload } from '../files/uploads.ts'
import { reportedTier } from '../shared/tier.ts'
import {
  agreedTier,
  burstCap,
  burstUntil429,
  foundFull,
  minuteMs,
  mostAdmittedFromRest,
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
  burst: Burst
}

let studies: TierStudies<UploadStudy> = new Map()

async function study(slot: KeySlot): Promise<UploadStudy | string> {
  const tier = agreedTier(slot, await tierOf(slot))
  if (typeof tier === 'string') return tier
  const limit = fileLimitsOf(tier)?.uploadsPerMinute
  if (limit === undefined) return `§8.4 gives no uploads per minute for tier ${tier}`
  const cap = burstCap(runConfig().baseUrl)
  if (limit + 1 > cap)
    return `tier ${tier} allows ${limit} uploads per minute, above the burst cap of ${cap} calls for this target`
  // A bucket may refill while the burst runs: allow up to twice the limit before the 429.
  const max = Math.min(cap, 2 * limit + 2)
  // Drain to the 429, wait for rest, then count from rest.
  const drain = await burstUntil429(smallUpload(slot), max)
  await waitMs(untilRestMs(drain.refused ?? drain.all.at(-1)!))
  const burst = await burstUntil429(smallUpload(slot), max)
  const result: UploadStudy = { tier, limit, burst }
  if (slot === 'tier0') quotaStart = burst.refused ? waitMs(untilRestMs(burst.refused)) : Promise.resolve()
  return result
}

/** The quota check waits for tier 0's upload window to be fresh again after the uploads study. */
let quotaStart: Promise<void> | undefined

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
      for (const ex of burst.admitted) expectStatus(ex, [200, 201], 'a small user_data upload')
      const most = mostAdmittedFromRest(limit, burst.all)
      const what = `from rest, at least ${limit} uploads accepted (tier ${tier}) and at most ${most}: the limit plus what ${minuteMs() / 1000} s minutes refill over ${(spanMs(burst.all) / 1000).toFixed(2)} s`
      const seen = burst.refused
        ? `${burst.admitted.length} accepted before the 429`
        : `${burst.admitted.length} accepted and no 429`
      expectThat(burst.admitted.length <= most, what, seen, burst.refused ?? burst.all.at(-1))
      if (!burst.refused)
        skipTest(
          `no 429 in ${burst.all.length} uploads over ${(spanMs(burst.all) / 1000).toFixed(1)} s: within what ${limit} per minute allows`,
        )
      precondition(
        foundFull(burst.all, limit),
        'P1-8.1-usage-limit-recovers',
        'the uploads bucket was not full after the announced reset',
      )
      expectThat(burst.admitted.length >= limit, what, seen, burst.refused)
    },
    options,
  )
})

describe('storage quota (Part 1 §8.4)', () => {
  check(
    'P1-8.4-storage-quota',
    'tier 0: uploads past 250 MB are refused, and accepted again after deletes',
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
      await quotaStart
      const quota = fileLimitsOf(0)!.maxStorageBytes
      // Whatever the account already stores counts: fill exactly up to the quota.
      const list = await api.get('/v1/files', { key: 'tier0', query: { limit: 10_000 } })
      expectStatus(list, 200)
      const stored = (isObject(list.json) && Array.isArray(list.json.data) ? list.json.data : []).reduce(
        (sum: number, f) => sum + (isObject(f) && typeof f.bytes === 'number' ? f.bytes : 0),
        0,
      )
      let left = quota - stored
      const pieces: string[] = []
      let n = 0
      while (left > 0) {
        const size = Math.min(PIECE_BYTES, left)
        n += 1
        const up = await upload(api, {
          label: `quota-${n}`,
          purpose: 'user_data',
          key: 'tier0',
          file: { ext: 'bin', contentType: 'application/octet-stream', content: { size } },
          timeoutMs: 600_000,
        })
        expectStatus(up.ex, [200, 201], `an upload that keeps tier 0 within its ${quota} bytes`)
        pieces.push(up.id!)
        left -= size
      }
      const over = await upload(api, { label: 'quota-over', purpose: 'user_data', key: 'tier0', file: SMALL })
      if (over.id !== undefined) await deleteFile(api, over.id)
      expectThat(
        over.ex.status >= 400 && over.ex.status < 500 && over.ex.status !== 429,
        `a refusal (4xx, not a rate limit) once ${quota} bytes are stored`,
        `status ${over.ex.status}`,
        over.ex,
      )
      await deleteFile(api, pieces[0]!)
      const again = await upload(api, { label: 'quota-again', purpose: 'user_data', key: 'tier0', file: SMALL })
      expectStatus(again.ex, [200, 201], 'an upload accepted again after a file was deleted')
    },
    { timeout: 1_200_000 },
  )
})
