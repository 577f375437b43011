/**
 * Tier rules on the compatible endpoints (Part 1 §1.5, §2.3, §7, §8.3), for every tier whose key is given:
 *
 * - a model whose min_tier is above the key's tier is refused, never served (§1.5: the tier sets which models can
 *   be used);
 * - a burst from rest against the usable model whose per-minute request limit (extra.rate_limits.current.rpm of its
 *   record, §2.3) is the cheapest to reach ends in a 429 once more calls than any allowed limiter admits
 *   (L + L·T/minute, buckets.ts) were made (§8.3), and that 429 has the compatible body of §7;
 * - that 429's Retry-After, when present, is whole seconds and waiting it is enough (SHOULD);
 * - with a second key of the main key's account, the model's limit holds for both keys together (§8.3: shared by
 *   all keys of the organization).
 *
 * Bursts spend real calls: at most TIERS_DEFAULTS.burstCapLoopback against a target on this machine and
 * burstCapRemote elsewhere; a tier whose smallest limit is above the cap is skipped with that reason, and every
 * call is estimated against the budget first.
 */
import { beforeAll, describe } from 'vitest'
import { expectSetup, expectThat, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { KeySlot } from '../../harness/keys.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { skipTest } from '../../harness/worker/recorder.ts'
import { check, runConfig, spend } from '../../harness/worker/suite.ts'
import { tierOf } from '../shared/tier.ts'
import {
  agreedTier,
  burstCap,
  burstUntil429,
  compatibleErrorOf,
  minuteMs,
  mostAdmittedFromRest,
  retryAfterWithinMinute,
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

/** Modes the suite can call with a minimal valid request, and that request. */
const CALLS: Record<
  string,
  { path: string; body: (id: string) => Record<string, unknown>; unitUsd: (price: Price) => number }
> = {
  chat: {
    path: '/v1/chat/completions',
    body: (id) => ({ model: id, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 }),
    unitUsd: (p) => (20 * p.input + 16 * p.output) / 1e6, // a few prompt tokens and at most a little output
  },
  embedding: {
    path: '/v1/embeddings',
    body: (id) => ({ model: id, input: 'hi' }),
    unitUsd: (p) => (8 * p.input) / 1e6,
  },
  image_generation: {
    path: '/v1/images/generations',
    body: (id) => ({ model: id, prompt: 'a dot', n: 1 }),
    // The reference gives no image price; billed like a few thousand output tokens, at least a cent.
    unitUsd: (p) => Math.max(0.01, (20 * p.input + 4000 * p.output) / 1e6),
  },
}

interface Price {
  input: number
  output: number
}

interface ListedModel {
  id: string
  mode: string
  minTier: number
  price: Price
  maxInputTokens?: number
}

const listed = new Map<KeySlot, Promise<ListedModel[]>>()

function modelsFor(slot: KeySlot): Promise<ListedModel[]> {
  let found = listed.get(slot)
  if (!found) {
    found = (async () => {
      const list = await api.get('/v1/models', { key: slot })
      expectSetup(list, 200, 'the model list of this key, to find a model to burst on')
      const data = isObject(list.json) && Array.isArray(list.json.data) ? list.json.data : []
      return data
        .filter(isObject)
        .filter((m) => typeof m.id === 'string')
        .map((m) => {
          const pricing = isObject(m.pricing) ? m.pricing : {}
          const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 1000)
          return {
            id: m.id as string,
            mode: String(m.mode),
            minTier: typeof m.min_tier === 'number' ? m.min_tier : 0,
            price: { input: num(pricing.input), output: num(pricing.output) },
            ...(typeof m.max_input_tokens === 'number' ? { maxInputTokens: m.max_input_tokens } : {}),
          }
        })
    })()
    listed.set(slot, found)
  }
  return found
}

/** The key's tier as its model records say (extra.rate_limits.current.tier), with that model's current rpm. */
async function currentOf(
  slot: KeySlot,
  id: string,
): Promise<{ tier?: number; rpm?: number; tpm?: number; ex: Exchange }> {
  const ex = await api.get(`/v1/models/${encodeURIComponent(id)}`, { key: slot })
  const body = ex.json
  const current =
    isObject(body) && isObject(body.extra) && isObject(body.extra.rate_limits)
      ? body.extra.rate_limits.current
      : undefined
  return {
    ...(isObject(current) && tierOf(current.tier) !== undefined ? { tier: tierOf(current.tier) } : {}),
    ...(isObject(current) && typeof current.rpm === 'number' ? { rpm: current.rpm } : {}),
    ...(isObject(current) && typeof current.tpm === 'number' ? { tpm: current.tpm } : {}),
    ex,
  }
}

interface BurstStudy {
  model: ListedModel
  rpm: number
  burst: Burst
  /** The call made after waiting the 429's Retry-After, when it had one. */
  afterRetryAfter?: Exchange
}

let bursts: TierStudies<BurstStudy> = new Map()

/** A model to burst on, its rpm and the most calls a burst on it may make; a string says why there is none. */
interface BurstPick {
  model: ListedModel
  rpm: number
  max: number
  call: (key: KeySlot) => Promise<Exchange>
  /** What one call costs, to reserve against the budget. */
  unitUsd: number
}

async function pickBurst(slot: KeySlot, tier: number): Promise<BurstPick | string> {
  const models = await modelsFor(slot)
  const candidates: Array<{ model: ListedModel; rpm: number }> = []
  for (const model of models.filter((m) => m.minTier <= tier && CALLS[m.mode] !== undefined)) {
    const { rpm } = await currentOf(slot, model.id)
    if (rpm !== undefined && rpm > 0) candidates.push({ model, rpm })
  }
  if (candidates.length === 0)
    return `no model this key may use is of a mode the suite can call (${Object.keys(CALLS).join(', ')}) with an rpm in extra.rate_limits.current`
  const cap = burstCap(runConfig().baseUrl)
  // A bucket refills while a burst runs, and a slow target's burst lasts longer than its minute: allow up to three
  // times the limit before the 429.
  const maxFor = (rpm: number): number => Math.min(cap, 3 * rpm + 2)
  // The drain and the burst from rest each make at most that many calls, and one more follows the Retry-After.
  const costOf = (c: { model: ListedModel; rpm: number }): number =>
    (2 * maxFor(c.rpm) + 1) * CALLS[c.model.mode]!.unitUsd(c.model.price)
  // The cheapest burst that shows a limit within the cap: any limit will do to see the 429 and its promise.
  const within = candidates.filter((c) => c.rpm + 1 <= cap).sort((a, b) => costOf(a) - costOf(b) || a.rpm - b.rpm)
  const pick = within[0]
  if (!pick) {
    const smallest = [...candidates].sort((a, b) => a.rpm - b.rpm)[0]!
    return `the smallest per-minute limit this key has on a callable model is ${smallest.rpm} (${smallest.model.id}), above the burst cap of ${cap} calls for this target`
  }
  const how = CALLS[pick.model.mode]!
  return {
    ...pick,
    max: maxFor(pick.rpm),
    call: (key) => api.post(how.path, how.body(pick.model.id), { key, retry429: false }),
    unitUsd: how.unitUsd(pick.model.price),
  }
}

async function burstStudy(slot: KeySlot): Promise<BurstStudy | string> {
  const models = await modelsFor(slot)
  const first = models[0]
  if (!first) return 'the model list with this key is empty'
  const tier = agreedTier(slot, (await currentOf(slot, first.id)).tier)
  if (typeof tier === 'string') return tier
  const pick = await pickBurst(slot, tier)
  if (typeof pick === 'string') return pick
  const call = () => pick.call(slot)
  // Drain to the limit first, then measure from rest.
  spend(
    2 * pick.max * pick.unitUsd,
    `up to ${2 * pick.max} calls to ${pick.model.id} to reach its rate limit from rest`,
  )
  const drain = await burstUntil429(call, pick.max)
  await waitMs(untilRestMs(drain.refused ?? drain.all.at(-1)!))
  const burst = await burstUntil429(call, pick.max)
  const study: BurstStudy = { model: pick.model, rpm: pick.rpm, burst }
  const retryAfter = burst.refused ? retryAfterWithinMinute(burst.refused) : undefined
  if (retryAfter !== undefined) {
    spend(pick.unitUsd, `one call to ${pick.model.id} after Retry-After`)
    await waitMs(retryAfter)
    study.afterRetryAfter = await call()
  }
  return study
}

/**
 * §8.3: a model's limits are the organization's, shared by all its keys. With the main key and a second key of the
 * same account: drain the model with the main key, wait for rest, then calls alternating between the two keys until
 * a 429. Limits per key would admit about twice the rpm; shared ones at most L + L·T/minute in all.
 */
interface SharedStudy {
  model: ListedModel
  rpm: number
  /** The main key's drain: its 429 shows the rpm holds for one key. */
  drain: Burst
  burst?: Burst
}

const SECOND_KEY = `set GATEWAY_API_KEY_SECOND to a second key of GATEWAY_API_KEY's account`

async function sharedStudy(): Promise<SharedStudy | string> {
  if (!api.hasKey('second')) return `no second key of one account: ${SECOND_KEY}`
  const models = await modelsFor('main')
  const first = models[0]
  if (!first) return 'the model list with the main key is empty'
  const tier = (await currentOf('main', first.id)).tier
  if (tier === undefined) return 'extra.rate_limits.current of a model retrieved with the main key gives no tier'
  const pick = await pickBurst('main', tier)
  if (typeof pick === 'string') return pick
  spend(2 * pick.max * pick.unitUsd, `up to ${2 * pick.max} calls to ${pick.model.id} with two keys of one account`)
  const drain = await burstUntil429(() => pick.call('main'), pick.max)
  const study: SharedStudy = { model: pick.model, rpm: pick.rpm, drain }
  if (!drain.refused) return study
  await waitMs(untilRestMs(drain.refused))
  let i = 0
  const keys: readonly KeySlot[] = ['main', 'second']
  study.burst = await burstUntil429(() => pick.call(keys[i++ % 2]!), pick.max)
  return study
}

/**
 * §8.3: a model's tokens per minute for the caller's tier are its extra.rate_limits.current.tpm. Embedding calls of
 * long inputs, one after another after a minute of rest, spend them faster than the requests per minute run out
 * (embeddings, because chat and responses may also meet a project-scoped token bucket first, §4.1). The tokens the
 * admitted calls used (usage.total_tokens) are bounded by what any limiter admits over the span (twice the limit
 * where a window ends within it, plus the refill), and one call more: a bucket may admit a call while a token is
 * left and count what it used when it is done.
 */
const TOKENS = {
  targetPerCall: 20_000, // tokens one call spends, so that a tier's TPM is passed in few calls
  probeWords: 1_000, // the first call's input, to learn how many tokens a word is on this target
  maxCalls: 60, // a TPM that needs more calls than this is skipped: the burst would cost too much
  inputShare: 0.75, // of max_input_tokens, for each string of a call's input
}

interface TokenStudy {
  model: string
  tpm: number
  burst: Burst
  tokens: number[]
}

const totalTokens = (ex: Exchange): number | undefined => {
  const usage = isObject(ex.json) && isObject(ex.json.usage) ? ex.json.usage : undefined
  return usage && typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined
}

async function tokenStudy(slot: KeySlot): Promise<TokenStudy | string> {
  const models = await modelsFor(slot)
  const tier = agreedTier(slot, models[0] ? (await currentOf(slot, models[0].id)).tier : undefined)
  if (typeof tier === 'string') return tier
  const usable: Array<{ model: ListedModel; rpm: number; tpm: number }> = []
  for (const model of models.filter((m) => m.mode === 'embedding' && m.minTier <= tier)) {
    const { rpm, tpm } = await currentOf(slot, model.id)
    if (rpm !== undefined && tpm !== undefined && tpm > 0) usable.push({ model, rpm, tpm })
  }
  const pick = usable.sort((a, b) => a.tpm - b.tpm || a.model.price.input - b.model.price.input)[0]
  if (!pick) return 'no embedding model this key may use has a tpm in extra.rate_limits.current'
  const calls = Math.ceil((3 * pick.tpm) / TOKENS.targetPerCall) + 2
  if (calls > TOKENS.maxCalls)
    return `${pick.model.id} allows ${pick.tpm} tokens per minute at tier ${tier}: more than ${TOKENS.maxCalls} calls of ${TOKENS.targetPerCall} tokens to pass`
  if (calls >= pick.rpm)
    return `${pick.model.id} allows ${pick.rpm} requests per minute at tier ${tier}, which ${calls} calls would meet before its ${pick.tpm} tokens`
  const body = (words: number, strings: number) => ({
    model: pick.model.id,
    input: Array.from({ length: strings }, (_, i) => `${i} ${'word '.repeat(words)}`),
  })
  spend(
    ((TOKENS.probeWords + calls * TOKENS.targetPerCall) * pick.model.price.input) / 1e6,
    `${calls + 1} long inputs to ${pick.model.id}`,
  )
  const probe = await api.post('/v1/embeddings', body(TOKENS.probeWords, 1), { key: slot, retry429: true })
  expectSetup(probe, 200, `an embedding of ${pick.model.id}, to learn the tokens of a word`)
  const probeTokens = totalTokens(probe)
  if (probeTokens === undefined || probeTokens <= 0) return 'the embeddings answer has no usage.total_tokens to count'
  const perString = Math.floor(TOKENS.inputShare * (pick.model.maxInputTokens ?? 8_000))
  const strings = Math.ceil(TOKENS.targetPerCall / perString)
  const words = Math.floor((perString * TOKENS.probeWords) / probeTokens)
  await waitMs(minuteMs() + TIERS_DEFAULTS.marginMs)
  const burst = await burstUntil429(
    () => api.post('/v1/embeddings', body(words, strings), { key: slot, retry429: false }),
    calls,
    1,
  )
  return { model: pick.model.id, tpm: pick.tpm, burst, tokens: burst.admitted.map((ex) => totalTokens(ex) ?? 0) }
}

let tokenStudies: TierStudies<TokenStudy> = new Map()
let shared: Promise<SharedStudy | string> = Promise.resolve('not started')

beforeAll(() => {
  bursts = startPerTier(api, burstStudy)
  // After every request burst: one may use the same model, and each would spend the other's limit; and long inputs
  // keep a gateway busy, which a burst timed against a minute should not meet.
  const burstsDone = Promise.all([...bursts.values()].map((running) => running.catch(() => undefined)))
  tokenStudies = startPerTier(api, async (slot) => {
    await burstsDone
    return tokenStudy(slot)
  })
  // Last: the main key's account is often one of the tiers' (the tier-2 key here), whose model pools it shares.
  const tokensDone = Promise.all([...tokenStudies.values()].map((running) => running.catch(() => undefined)))
  shared = tokensDone.then(sharedStudy)
  shared.catch(() => undefined)
})

const studyOf = (slot: KeySlot) => studyFor(bursts, slot)

const options = { timeout: TIERS_DEFAULTS.testTimeoutMs }

describe.each(TIER_SLOTS.map((slot) => [slot]))(
  'tier rules on compatible endpoints with the %s key (Part 1 §1.5, §7, §8.3)',
  (slot) => {
    check(
      'P1-1.5-model-above-tier',
      `${slot}: a model above the key's tier is refused`,
      async () => {
        if (!api.hasKey(slot)) skipTest(`no key for ${slot}: set GATEWAY_API_KEY_${slot.toUpperCase()}`)
        const models = await modelsFor(slot)
        const tier = agreedTier(slot, models[0] ? (await currentOf(slot, models[0].id)).tier : undefined)
        if (typeof tier === 'string') skipTest(tier)
        const above = models
          .filter((m) => m.minTier > tier && CALLS[m.mode] !== undefined)
          .sort((a, b) => a.price.output - b.price.output)[0]
        if (!above)
          skipTest(`no model above tier ${tier} of a mode the suite can call (${Object.keys(CALLS).join(', ')})`)
        const how = CALLS[above.mode]!
        spend(how.unitUsd(above.price), `one call to ${above.id}, which should be refused`)
        const ex = await api.post(how.path, how.body(above.id), { key: slot })
        expectThat(
          ex.status >= 400 && ex.status < 500 && ex.status !== 429,
          `a client error other than 429 for ${above.id} (min_tier ${above.minTier}) at tier ${tier}`,
          `status ${ex.status}`,
          ex,
        )
      },
      options,
    )

    check(
      'P1-8.3-model-rpm',
      `${slot}: a model's requests per minute (extra.rate_limits.current.rpm) hold`,
      async () => {
        const s = await studyOf(slot)
        expectWithinRpm(s.model, s.rpm, s.burst, 'for this key')
      },
      options,
    )

    check(
      'P1-7-compatible-429-body',
      `${slot}: a 429 on a compatible endpoint has the §7 error object`,
      async () => {
        const s = await studyOf(slot)
        precondition(
          s.burst.refused !== undefined,
          'P1-8.3-model-rpm',
          `no 429 in ${s.burst.all.length} calls to ${s.model.id} (rpm ${s.rpm}), so there is no 429 body to judge`,
        )
        const error = compatibleErrorOf(s.burst.refused!)
        expectThat(error !== undefined, 'a body {error: {...}}', s.burst.refused!.text.slice(0, 200), s.burst.refused)
        const problems = [
          error!.type === 'rate_limit_error' ? null : `type ${JSON.stringify(error!.type)} (rate_limit_error)`,
          error!.param === null ? null : `param ${JSON.stringify(error!.param)} (null)`,
          error!.code === 'rate_limit_exceeded' ? null : `code ${JSON.stringify(error!.code)} (rate_limit_exceeded)`,
          typeof error!.message === 'string' ? null : 'message is not a string',
        ].filter((p): p is string => p !== null)
        expectThat(
          problems.length === 0,
          'type rate_limit_error, param null, code rate_limit_exceeded, a message',
          problems.join('; '),
          s.burst.refused,
        )
      },
      options,
    )

    check(
      'P1-7-retry-after',
      `${slot}: Retry-After is whole seconds and waiting it is enough`,
      async () => {
        const s = await studyOf(slot)
        precondition(s.burst.refused !== undefined, 'P1-7-compatible-429-body', `no 429 was provoked on ${s.model.id}`)
        const raw = s.burst.refused!.header('retry-after')
        if (raw === undefined) skipTest('the 429 carried no Retry-After (§4.1: it may accompany 429)')
        expectThat(/^\d+$/.test(raw.trim()), 'Retry-After as a whole number of seconds', raw, s.burst.refused)
        if (s.afterRetryAfter === undefined)
          skipTest(`Retry-After ${raw} is longer than a minute; the suite does not wait that long`)
        // Nothing else calls this model with this key in between: the capacity the wait promised is this call's.
        expectThat(
          s.afterRetryAfter!.status !== 429,
          `a call admitted after waiting Retry-After: ${raw} s`,
          'a 429 again',
          s.afterRetryAfter,
        )
      },
      options,
    )
  },
)

/** From rest, at most L + L·T/minute calls admitted before a 429 (a skip where no 429 came within that). */
function expectWithinRpm(model: ListedModel, rpm: number, burst: Burst, whose: string): void {
  const most = mostAdmittedFromRest(rpm, burst.all)
  const span = `${(spanMs(burst.all) / 1000).toFixed(2)} s`
  expectThat(
    burst.admitted.length <= most,
    `a 429 once more than ${most} calls were admitted from rest to ${model.id} (rpm ${rpm} ${whose}, plus what ${minuteMs() / 1000} s minutes refill over ${span})`,
    `${burst.admitted.length} calls admitted ${burst.refused ? 'before the 429' : 'and no 429'}`,
    burst.refused ?? burst.all.at(-1),
  )
  if (!burst.refused)
    skipTest(`no 429 in ${burst.all.length} calls to ${model.id} over ${span}: within what ${rpm} per minute allows`)
}

describe('model limits shared by the keys of one account (Part 1 §8.3)', () => {
  check(
    'P1-8.3-model-limits-shared',
    "two keys of one account share a model's requests per minute",
    async () => {
      const s = await shared
      if (typeof s === 'string') skipTest(s)
      precondition(
        s.drain.refused !== undefined,
        'P1-8.3-model-rpm',
        `no 429 in ${s.drain.all.length} calls to ${s.model.id} with the main key alone (rpm ${s.rpm})`,
      )
      expectWithinRpm(s.model, s.rpm, s.burst!, 'for the account, calls alternating between its two keys')
    },
    options,
  )
})

describe.each(TIER_SLOTS.map((slot) => [slot]))('tokens per minute with the %s key (Part 1 §8.3)', (slot) => {
  check(
    'P1-8.3-model-tpm',
    `${slot}: a model's tokens per minute (extra.rate_limits.current.tpm) hold`,
    async () => {
      const s = await studyFor(tokenStudies, slot)
      const used = s.tokens.reduce((sum, n) => sum + n, 0)
      const largest = Math.max(0, ...s.tokens)
      const span = spanMs(s.burst.all)
      const most = Math.floor(2 * s.tpm + (s.tpm * span) / minuteMs() + largest)
      expectThat(
        used <= most,
        `at most ${most} tokens admitted to ${s.model} (tpm ${s.tpm}: twice it, the refill over ${(span / 1000).toFixed(2)} s and one call of ${largest}) before a 429`,
        `${used} tokens in ${s.burst.admitted.length} calls ${s.burst.refused ? 'before the 429' : 'and no 429'}`,
        s.burst.refused ?? s.burst.all.at(-1),
      )
    },
    options,
  )
})
