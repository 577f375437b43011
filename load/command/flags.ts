/**
 * The load command's flags: the help text, the parse, and the checks of single values a run's settings share. Kept
 * light: `load --help` reads it without loading the engines or the profiles.
 */
import { parseArgs } from 'node:util'
import { DEFAULTS } from '../../harness/setup/config.ts'
import { parseDurationMs } from '../../harness/duration.ts'
import { ConfigError } from '../../harness/errors.ts'
import { embeddedChoices } from '../../harness/setup/target.ts'
import { WORKERS } from '../engine/workers.ts'
import type { PlanContext } from '../profiles/profile.ts'

/** The most repeats --repeat takes. */
export const REPEAT = { max: 20 }

/** The help text, with the rate-limit algorithms of the embedded gateway (read from it, not started). */
export async function helpText(): Promise<string> {
  const { limiters } = await embeddedChoices()
  const perThread = WORKERS.minRatePerWorker
  const minute = DEFAULTS.embeddedMinuteMs
  return `Usage: npm run load -- --profile NAME [options]
       npm run load -- --list
       npm run load -- merge DIR DIR ... [--report-dir DIR]
       npm run load -- compare BASELINE_DIR NEW_DIR [--threshold PCT] (see compare --help)

Loads GATEWAY_BASE_URL (or the embedded reference gateway) with a profile and judges what the rate limits did.

Options:
  --profile NAME|FILE     the profile to run (--list shows them), or a workload file (.json, .yaml or .yml;
                          schemas/load/profile.schema.json)
  --tier N                the tier whose key a profile without a tier in its name uses (0 to 5)
  --duration D            the length of each load phase, e.g. 90s, 2m (default: per profile, two or three minutes)
  --rate R                calls per second that every load phase offers instead of its multiple of the limit
  --connections C         connections (closed-loop profiles) or the most calls in flight; workers for backoff
  --workers N             threads that share an open-loop phase offering more than ${perThread} calls/s per thread, each
                          with its own connections, their figures merged exactly (default: the cores, less one
                          for the embedded gateway)
  --arrival P             how open-loop calls arrive: constant, poisson or gamma:<burstiness> (1 is poisson,
                          below 1 burstier); default: each phase's own, else constant
  --ramp R                ramp each open-loop phase up to its rate: linear:30s or exponential:30s, then steady
  --seed N                the seed of arrivals and of a workload file's bodies (default: drawn at random and
                          written in the report, so that a run can be repeated call for call)
  --report-dir DIR        parent of load/<run-id>/ (default reports)
  --confirm-target HOST   required for a target that is not on this machine: its host name, typed again
  --shard i/n             run slice i of n of the profile's offered load (rates and connections divided)
  --phase a,b             run only these phases of the profile (names as in its report)
  --slo LIST              objectives, each a verdict, e.g. ttft_p99=2s,itl_p99=150ms,e2e_p99=30s,errors=1%
                          (METRIC_pNN, METRIC_mean or METRIC_max of e2e, ttft, itl, tpot, lag; errors=N%,
                          where a 429 is a refusal, not an error); goodput counts the calls within them
  --abort-on-fail         stop the run once an objective is breached beyond recovery (after 50 calls of a phase)
  --repeat K              run the profile K times (1 to ${REPEAT.max}) against one target: each repeat's report in
                          repeat-N/, their merge and each figure's spread across them in the run's own directory
  --limiter NAME          the embedded gateway's rate-limit algorithm: ${limiters.join(', ')}
                          (default fixed-window); a target's own algorithm is observed in the report, never judged
  --limit SPEC            a limit the target enforces, as its operator configured it, judged as if announced;
                          repeatable: ROUTE=N/PERIOD[,key=SLOT][,headers=requests], ROUTE a method and path or
                          a route kind, e.g. 'POST /v1/chat/completions=600/1m' (run it: --profile stated-limits)
  --route-limit SPEC      a limit the embedded gateway enforces on one route without announcing it in its
                          catalogue: 'METHOD /path=N/PERIOD' (gateway/README.md, --route-limit); repeatable
  --minute-ms MS          the rate-limit minute of the embedded gateway (default ${minute}), or of a gateway on
                          this machine started with --minute-ms; a remote target's minute is 60 s
  --base-url URL          host root of the target (GATEWAY_BASE_URL)
  -h, --help              this text

Keys come from GATEWAY_API_KEY and GATEWAY_API_KEY_TIER0..5 (environment or .env).
Exit codes: 0 every verdict passed, 1 a verdict failed, 2 harness error or bad configuration,
            3 inconclusive (the generator could not hold its schedule, or the run was stopped early).
`
}

export interface Flags {
  profile?: string
  tier?: string
  duration?: string
  rate?: string
  connections?: string
  workers?: string
  arrival?: string
  ramp?: string
  seed?: string
  'report-dir'?: string
  'confirm-target'?: string
  shard?: string
  'minute-ms'?: string
  limiter?: string
  limit?: string[]
  'route-limit'?: string[]
  phase?: string
  slo?: string
  'abort-on-fail'?: boolean
  repeat?: string
  'base-url'?: string
  list?: boolean
  help?: boolean
}

export function parseFlags(argv: string[]): { flags: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        profile: { type: 'string' },
        tier: { type: 'string' },
        duration: { type: 'string' },
        rate: { type: 'string' },
        connections: { type: 'string' },
        workers: { type: 'string' },
        arrival: { type: 'string' },
        ramp: { type: 'string' },
        seed: { type: 'string' },
        'report-dir': { type: 'string' },
        'confirm-target': { type: 'string' },
        shard: { type: 'string' },
        'minute-ms': { type: 'string' },
        limiter: { type: 'string' },
        limit: { type: 'string', multiple: true },
        'route-limit': { type: 'string', multiple: true },
        phase: { type: 'string' },
        slo: { type: 'string' },
        'abort-on-fail': { type: 'boolean' },
        repeat: { type: 'string' },
        'base-url': { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    return { flags: values, positionals }
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run load -- --help)`)
  }
}

/** A number flag that passes `check`, or null when it was not given. */
export function number(
  raw: string | undefined,
  flag: string,
  check: (n: number) => boolean,
  what: string,
): number | null {
  if (raw === undefined) return null
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new ConfigError(`${flag} must be ${what} (got "${raw}")`)
  return n
}

export function parseDuration(raw: string | undefined): number | null {
  if (raw === undefined) return null
  const ms = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) * 1000 : parseDurationMs(raw)
  if (ms === undefined || ms < 1000 || ms > 3_600_000)
    throw new ConfigError(`--duration must be between 1s and 1h, e.g. 90s or 2m (got "${raw}")`)
  return ms
}

export function parseArrival(raw: string | undefined): PlanContext['arrival'] {
  if (raw === undefined) return null
  const v = raw.trim()
  if (v === 'constant' || v === 'poisson') return { process: v }
  const gamma = /^gamma:(\d+(?:\.\d+)?)$/.exec(v)
  const burstiness = Number(gamma?.[1])
  if (gamma && burstiness >= 0.01 && burstiness <= 100) return { process: 'gamma', burstiness }
  throw new ConfigError(
    '--arrival must be constant, poisson or gamma:<burstiness> with a burstiness from 0.01 to 100, e.g. gamma:0.5 ' +
      `(got "${raw}")`,
  )
}

export function parseRamp(raw: string | undefined): PlanContext['ramp'] {
  if (raw === undefined) return null
  const match = /^(linear|exponential):(.+)$/.exec(raw.trim())
  const spanMs = match ? parseDurationMs(match[2] as string) : undefined
  if (!match || spanMs === undefined || spanMs < 1000 || spanMs > 3_600_000)
    throw new ConfigError(
      '--ramp must be linear:<span> or exponential:<span> with a span from 1s to 1h, e.g. linear:30s ' +
        `(got "${raw}")`,
    )
  return { shape: match[1] as 'linear' | 'exponential', spanMs }
}
