/**
 * Faults of the rate limiter and the tier rules (Part 1 §1.5, §4.1, §7, §8.1, §8.4). See ../faults/registry.ts for
 * what a fault is. Each bends one behaviour of gateway/hooks/rate-limit.ts, gateway/models/access.ts or the file
 * routes.
 */
import type { FaultDefinition } from '../faults/definition.ts'

export const TIERS_FAULTS = [
  {
    name: 'usage-limit-off-by-one',
    limiter: true,
    breaks: ['P1-8.1-usage-rate-limited'],
    loadVerdicts: ['admission'],
    description:
      'The usage endpoints admit one call more per window than the §8.1 table (the headers still report the table).',
  },
  {
    name: 'usage-limit-header-wrong',
    breaks: ['P1-8.1-usage-limit-header'],
    description:
      'On /user/v1, x-ratelimit-limit-requests reports the limit per hour (60 times the table) while the table is enforced.',
  },
  {
    name: 'ratelimit-reset-short',
    breaks: ['P1-8.1-usage-limit-recovers'],
    loadVerdicts: ['recovery'],
    // Proven under the default fixed window: under a sliding window "reset" may mean one slot freed, and the rule's
    // measurements from rest then find no rest to start from.
    description: 'x-ratelimit-reset-* announce a quarter of the real time until the window ends.',
  },
  {
    name: 'ratelimit-reset-over-minute',
    limiter: true,
    breaks: ['P1-4.1-ratelimit-reset-window'],
    loadVerdicts: ['headers'],
    description: 'x-ratelimit-reset-* add 90 seconds to the real time until the window ends.',
  },
  {
    name: 'limiter-race',
    limiter: true,
    breaks: ['P1-8.1-usage-limit-concurrent'],
    description:
      'The request counter reads, then writes once the key has had no new call for 250 ms: every call of a burst reads the bucket as it was, and more than the limit are admitted.',
  },
  {
    name: 'remaining-not-decreasing',
    limiter: true,
    breaks: ['P1-4.1-ratelimit-remaining'],
    loadVerdicts: ['headers'],
    description: 'x-ratelimit-remaining-* always equal the limit.',
  },
  {
    name: 'compatible-429-wrong-type',
    breaks: ['P1-7-compatible-429-body'],
    description: 'A 429 on a compatible endpoint has error.type invalid_request_error instead of rate_limit_error.',
  },
  {
    name: 'retry-after-too-short',
    limiter: true,
    breaks: ['P1-7-retry-after'],
    loadVerdicts: ['backoff'],
    description:
      'Retry-After is half the real wait, rounded down, less one second: a client that waits it retries too early.',
  },
  {
    name: 'failed-calls-not-counted',
    limiter: true,
    breaks: ['P1-7-failed-calls-count'],
    loadVerdicts: ['failed-calls'],
    description: 'Calls answered 4xx (other than 429) or 5xx are taken back out of the request bucket.',
  },
  {
    name: 'rate-limits-current-main-tier',
    breaks: ['P1-2.3-rate-limits-current-per-tier'],
    description: "extra.rate_limits.current reports tier 2 (the main key's) whatever the caller's tier.",
  },
  {
    name: 'min-tier-ignored',
    breaks: ['P1-1.5-model-above-tier', 'P1-1.5-chat-min-tier'],
    description: "Models above the caller's tier are served on chat, responses and the other compatible endpoints.",
  },
  {
    name: 'uploads-per-minute-downloads',
    limiter: true,
    breaks: ['P1-8.4-uploads-per-minute'],
    description: 'Uploads are limited by the downloads-per-minute column of the §8.4 table.',
  },
  {
    name: 'model-tpm-unchecked',
    limiter: true,
    breaks: ['P1-8.3-model-tpm'],
    description: "A model's tokens per minute are counted but never refuse a call.",
  },
  {
    name: 'model-rpm-unchecked',
    limiter: true,
    breaks: ['P1-8.3-model-rpm'],
    description: "A model's requests per minute are counted but never refuse a call.",
  },
  {
    name: 'model-limits-per-key',
    limiter: true,
    breaks: ['P1-8.3-model-limits-shared'],
    description:
      "A model's limits are counted per key, not per organization: each key of an account has the whole pool.",
  },
  {
    name: 'deletes-unlimited',
    limiter: true,
    breaks: ['P1-8.4-deletes-per-minute'],
    description: 'File deletes are not limited per minute.',
  },
  {
    name: 'storage-quota-ignored',
    breaks: ['P1-8.4-storage-quota'],
    description: "Uploads are accepted whatever the account's stored bytes.",
  },
  {
    name: 'project-headers-partial',
    breaks: ['P1-4.1-project-token-headers'],
    description: 'Where the project-scoped token bucket applies, x-ratelimit-reset-project-tokens is missing.',
  },
  {
    name: 'route-limit-503',
    breaks: [],
    loadVerdicts: ['refusal'],
    description:
      'A spent --route-limit bucket is answered 503 without Retry-After instead of 429, as some gateways answer a limit of their own.',
  },
  {
    name: 'usage-bucket-shared',
    breaks: [],
    loadVerdicts: ['isolation'],
    description:
      "Every account counts against one usage-limit counter on /user/v1, so one account's calls throttle another's.",
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the tiers faults: what its rules and reshapes are typed by. */
export type TiersFault = (typeof TIERS_FAULTS)[number]['name']
