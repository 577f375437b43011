/**
 * What a load profile is: a name, hard caps, and a plan of phases made against the target (some profiles look
 * up the limits first, e.g. a model's extra.rate_limits). Profiles live in load/profiles/, one file per kind.
 */
import type { NamedModels } from '../../harness/setup/config.ts'
import { ConfigError } from '../../harness/errors.ts'
import { lookupJson } from '../engine/call.ts'
import type { StatedLimit } from '../stated-limits.ts'
import type { ArrivalPlan, CapacityResult, KeySlotName, Objective, PhasePlan, PhaseResult, Verdict } from '../types.ts'

export interface ProfileCaps {
  /** The whole run, waits included, never lasts longer than this. */
  maxDurationMs: number
  /** Nor sends more calls than this, over all phases. */
  maxRequests: number
}

export interface PlanContext {
  baseUrl: string
  embedded: boolean
  /** The target's rate-limit minute: 60 s, or the embedded gateway's shortened minute. */
  minuteMs: number
  /** The embedded gateway's --limiter, when it was given one (a remote target's algorithm is only observed). */
  limiter?: string
  keys: Partial<Record<KeySlotName, string>>
  /** --tier, when given. */
  tier: number | null
  /** --phase: the phases the run will keep (the runner sets it), so that a plan can skip lookups only others need. */
  phases?: readonly string[] | null
  /** --duration: the length of each load phase. */
  durationMs: number | null
  /** --rate: every load phase offers this many calls per second instead of its multiple of the limit. */
  rate: number | null
  /** --connections. */
  connections: number | null
  /** --workers: threads that drive an open-loop phase past what one core holds (engine/workers.ts); absent: 1. */
  workers?: number
  /** --slo, parsed (none: []); a search judges its steps by them. */
  objectives?: readonly Objective[]
  /** GATEWAY_MODELS: the target's model per capability, which every profile uses before the catalogue. */
  models?: NamedModels
  /** Limits the operator stated (--limit, then a workload file's limits:): judged as if the target announced them. */
  limits?: readonly StatedLimit[]
  /** --arrival: the process every open-loop phase uses instead of its own (null: each phase's own, else constant). */
  arrival?: Pick<ArrivalPlan, 'process' | 'burstiness'> | null
  /** --ramp: every open-loop phase ramps up so, instead of as it says. */
  ramp?: ArrivalPlan['ramp'] | null
  /** The run's seed: --seed, else drawn at random by the command; recorded in result.json. */
  seed?: number
  /** --seed was given: it wins over the seeds a profile file names. */
  seedGiven?: boolean
  timeoutMs: number
  /** The run's id: what the run creates on the target carries it (harness/worker/run-tag.ts), for the sweep. */
  runId: string
  /** GET with a key slot's key; for profiles that look up limits (model records). */
  getJson(path: string, slot: KeySlotName): Promise<{ status: number; body: unknown; headers: Record<string, string> }>
}

/**
 * A profile whose next phase depends on what the last one measured (the capacity search): the runner runs
 * `first`, then asks `next` after each phase until it answers null, and `conclude` gives the result and verdicts.
 */
export interface Search {
  /** What each step is judged by, and what makes a call good: --slo, with the search's defaults. */
  objectives: Objective[]
  first: PhasePlan
  next(ran: readonly PhaseResult[]): PhasePlan | null
  /** `stopped`: why the run ended before the search did (Ctrl-C, a cap), else null. */
  conclude(ran: readonly PhaseResult[], stopped: string | null): { capacity: CapacityResult; verdicts: Verdict[] }
}

export interface Profile {
  name: string
  description: string
  /** The tier a tier-N profile is for (its name says it), else null (the profile takes --tier or its default). */
  tier: number | null
  caps: ProfileCaps
  /** A workload file's limits: block; --limit wins over an entry on the same route and key. */
  limits?: readonly StatedLimit[]
  plan(ctx: PlanContext): Promise<PhasePlan[]>
  /** Set for a search: the runner runs it instead of the plan (which then lists its first step). */
  search?(ctx: PlanContext): Promise<Search>
  /** Removes what the phases created on the target (uploaded files), bounded in time; returns what was left. */
  cleanup?(ctx: PlanContext, created: readonly string[]): Promise<{ removed: number; left: string[] }>
}

/**
 * How a module of this folder lists its profiles, as its `PROFILES`: index.ts collects them from every module, and
 * --list shows them by `order`, smallest first, each listing's profiles in the order `make` builds them.
 */
export interface ProfileListing {
  order: number
  /** Built afresh at each reading, as a run takes its profile. */
  make: () => Profile[]
}

export const TIERS = [0, 1, 2, 3, 4, 5] as const

export function slotOf(tier: number): KeySlotName {
  return `tier${tier}` as KeySlotName
}

/** The key slot a profile needs, or one clear line saying which variable to set. */
export function requireKey(ctx: PlanContext, slot: KeySlotName, profile: string): void {
  if (ctx.keys[slot] === undefined) {
    const variable = slot === 'main' ? 'GATEWAY_API_KEY' : `GATEWAY_API_KEY_${slot.toUpperCase()}`
    throw new ConfigError(`the profile ${profile} needs ${variable}; set it in the environment or in .env`)
  }
}

/**
 * The tier of a key that is not `tier`, to load beside it as the isolation probe; prefers lower tiers (smaller limits).
 */
export function otherTier(ctx: PlanContext, tier: number): number | null {
  const order = [...TIERS].filter((t) => t !== tier).sort((a, b) => Math.abs(a - tier) - Math.abs(b - tier) || a - b)
  return order.find((t) => ctx.keys[slotOf(t)] !== undefined) ?? null
}

/** A phase's length: --duration, else `minutes` of the target's minute. */
export function phaseMs(ctx: PlanContext, minutes: number): number {
  return ctx.durationMs ?? Math.round(minutes * ctx.minuteMs)
}

/** Calls per second for `perMinute` calls per minute of the target, unless --rate says otherwise. */
export function ratePerSecond(ctx: PlanContext, perMinute: number): number {
  return ctx.rate ?? perMinute / (ctx.minuteMs / 1000)
}

/** Connections for an open-loop phase: enough for the rate at a second's latency, at most 64, or --connections. */
export function connectionsFor(ctx: PlanContext, rate: number): number {
  return ctx.connections ?? Math.max(2, Math.min(64, Math.ceil(rate)))
}

/** PlanContext.getJson for a target: a GET with the slot's key; a body that is not JSON reads as null. */
export function jsonGetter(
  baseUrl: string,
  keys: Partial<Record<KeySlotName, string>>,
  timeoutMs: number,
): PlanContext['getJson'] {
  // Bounded in time and bytes (engine/call.ts): a hostile target's answer is one line, never a hang or a stack.
  return (path, slot) => {
    const key = keys[slot]
    return lookupJson(`${baseUrl}${path}`, key ? { authorization: `Bearer ${key}` } : {}, timeoutMs)
  }
}
