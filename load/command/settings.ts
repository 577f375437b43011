/** What the flags ask of a run, each checked with a message that says what to fix, before anything starts. */
import { randomInt } from 'node:crypto'
import { DEFAULTS, parseShard } from '../../harness/setup/config.ts'
import { ConfigError } from '../../harness/errors.ts'
import { type EmbeddedChoices, isLoopback } from '../../harness/setup/target.ts'
import { WORKERS } from '../engine/workers.ts'
import { parseObjectives } from '../objectives.ts'
import { profileNamed } from '../profiles/index.ts'
import { checkDistinct, parseLimitFlag } from '../stated-limits.ts'
import { type Flags, number, parseArrival, parseDuration, parseRamp, REPEAT } from './flags.ts'

/** What the flags ask of the profile's run. */
export function readSettings(name: string, flags: Flags) {
  const profile = profileNamed(name)
  if (!profile) throw new ConfigError(`unknown profile "${name}": npm run load -- --list shows the profiles`)
  const tier = number(flags.tier, '--tier', (n) => Number.isInteger(n) && n >= 0 && n <= 5, 'a tier from 0 to 5')
  if (tier !== null && profile.tier !== null && tier !== profile.tier)
    throw new ConfigError(
      `the profile ${profile.name} is for tier ${profile.tier}; drop --tier or run ` +
        `tier-${tier}-${profile.name.split('-').slice(2).join('-')}`,
    )
  const durationMs = parseDuration(flags.duration)
  const rate = number(flags.rate, '--rate', (n) => n > 0 && n <= 100_000, 'calls per second above 0 (at most 100000)')
  const connections = number(
    flags.connections,
    '--connections',
    (n) => Number.isInteger(n) && n >= 1 && n <= 1024,
    'a whole number from 1 to 1024',
  )
  const workersFlag = number(
    flags.workers,
    '--workers',
    (n) => Number.isInteger(n) && n >= 1 && n <= WORKERS.max,
    `a whole number from 1 to ${WORKERS.max}`,
  )
  const shard = flags.shard === undefined ? null : parseShard(flags.shard)
  const objectives = flags.slo === undefined ? [] : parseObjectives(flags.slo)
  if (flags['abort-on-fail'] && objectives.length === 0)
    throw new ConfigError('--abort-on-fail stops a run on a breached objective: give the objectives with --slo')
  const arrival = parseArrival(flags.arrival)
  const ramp = parseRamp(flags.ramp)
  const seedFlag = number(
    flags.seed,
    '--seed',
    (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff,
    'a whole number from 0 to 4294967295',
  )
  const seed = seedFlag ?? randomInt(0, 0xffffffff)
  const repeat =
    number(
      flags.repeat,
      '--repeat',
      (n) => Number.isInteger(n) && n >= 1 && n <= REPEAT.max,
      `a whole number from 1 to ${REPEAT.max}`,
    ) ?? 1
  // A search picks each step from what the last measured, so two searches have different phases to merge.
  if (repeat > 1 && profile.search)
    throw new ConfigError(
      `the profile ${profile.name} is a search: its repeats would not share their steps; ` +
        'run it again and compare the two',
    )
  const limits = (flags.limit ?? []).map(parseLimitFlag)
  checkDistinct(limits)
  return {
    profile,
    tier,
    durationMs,
    rate,
    connections,
    workers: workersFlag,
    shard,
    objectives,
    abortOnFail: flags['abort-on-fail'] === true,
    arrival,
    ramp,
    seed,
    seedGiven: seedFlag !== null,
    repeat,
    limits,
    phases:
      flags.phase === undefined
        ? null
        : flags.phase
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
  }
}

export type Settings = ReturnType<typeof readSettings>

/** What configures the embedded gateway: its minute, its limiter and the limits it enforces unannounced. */
export function readEmbedded(flags: Flags, choices: EmbeddedChoices) {
  const minuteMs = number(
    flags['minute-ms'],
    '--minute-ms',
    (n) => Number.isInteger(n) && n >= 200 && n <= DEFAULTS.realMinuteMs,
    `whole milliseconds from 200 to ${DEFAULTS.realMinuteMs}`,
  )
  const limiter = flags.limiter
  if (limiter !== undefined && !choices.limiters.includes(limiter))
    throw new ConfigError(`--limiter must be one of ${choices.limiters.join(', ')}, got '${limiter}'`)
  const routeLimits = flags['route-limit'] ?? []
  for (const text of routeLimits) choices.checkRouteLimit(text)
  return { minuteMs, limiter, routeLimits }
}

export type Embedded = ReturnType<typeof readEmbedded>

/** A target of its own: the embedded gateway's settings do not apply, and a remote host is typed again. */
export function checkRemote(baseUrl: string, embedded: Embedded, confirmed: string | undefined): void {
  if (embedded.limiter !== undefined)
    throw new ConfigError(
      "--limiter chooses the embedded gateway's algorithm; a target's own is observed in the report, never chosen",
    )
  if (embedded.routeLimits.length > 0)
    throw new ConfigError(
      "--route-limit configures the embedded gateway; a target's own limits are stated with --limit",
    )
  if (embedded.minuteMs !== null && !isLoopback(baseUrl))
    throw new ConfigError(
      '--minute-ms is for the embedded gateway or one on this machine started with --minute-ms; ' +
        "a remote target's minute is 60 s",
    )
  const host = new URL(baseUrl).hostname
  if (!isLoopback(baseUrl) && confirmed !== host)
    throw new ConfigError(`${baseUrl} is not on this machine: a load run against it needs --confirm-target ${host}`)
}
