/**
 * Generator efficiency: what the load harness's autocannon engine costs against autocannon alone. The saturation
 * profile's `models` phase (through runProfile, as `npm run load` runs it: setupClient hooks, a PhaseRecorder,
 * a progress line a second) against bare autocannon with the same URL, headers, connections and duration, on the
 * same target, in alternating rounds so that drift in the machine's load hits both alike.
 *
 * The target is the reference gateway in a child process: in the bench's own process it would share the event
 * loop with the generator, and the ratio would be diluted by the gateway's cost, which is the same on both sides.
 */
import { newRunId } from '../harness/setup/target.ts'
import autocannon from 'autocannon'
import { nowMs } from '../load/engine/recorder.ts'
import { jsonGetter, type PlanContext } from '../load/profiles/profile.ts'
import { SATURATION, saturationProfile } from '../load/profiles/saturation.ts'
import { runProfile } from '../load/runner.ts'
import type { KeySlotName } from '../load/types.ts'
import { startChildGateway } from './child-gateway.ts'
import { procCpuMs } from './children.ts'
import { median, type Row } from './table.ts'

interface GeneratorEfficiencyOptions {
  rounds: number
  roundMs: number
  /** One round per side first, not counted: JIT and connection setup in both processes. 0: none. */
  warmupMs: number
  /** The gateway child's rate-limit minute (see bench.ts for why it is short). */
  minuteMs: number
}

export const GENERATOR_EFFICIENCY = {
  goal: 0.95, // the harness achieves at least 95 % of the calls per second of bare autocannon
  slot: 'tier5' as KeySlotName, // the most request room, so the limiter refuses as little as possible
  timeoutMs: 30_000, // per call, as the load command's default
}

interface Counts {
  answers: number
  refused: number
  errors: number
  /** How long the generator ran, when it timed itself; else the round is timed from outside. */
  seconds?: number
}

interface Side extends Counts {
  rate: number
  /** CPU time over the round, ms: of the bench process (the generator) and of the gateway child. */
  generatorCpuMs: number
  gatewayCpuMs: number
  seconds: number
  /** The whole round, planning included, over which the CPU times were taken. */
  wallSeconds: number
}

async function measured(gatewayPid: number, run: () => Promise<Counts>): Promise<Side> {
  const cpu0 = process.cpuUsage()
  const gw0 = procCpuMs(gatewayPid)
  const t0 = nowMs()
  const counts = await run()
  const wallSeconds = (nowMs() - t0) / 1000
  const seconds = counts.seconds ?? wallSeconds
  const cpu = process.cpuUsage(cpu0)
  return {
    ...counts,
    rate: counts.answers / seconds,
    seconds,
    wallSeconds,
    generatorCpuMs: (cpu.user + cpu.system) / 1000,
    gatewayCpuMs: procCpuMs(gatewayPid) - gw0,
  }
}

async function harnessRound(ctx: PlanContext, durationMs: number, signal: AbortSignal): Promise<Counts> {
  const result = await runProfile({
    profile: saturationProfile(),
    context: { ...ctx, durationMs },
    runId: 'bench-generator-efficiency',
    shard: null,
    phases: ['models'],
    signal,
    toolVersion: 'bench',
    // The load command builds a progress line every second; so does this, so that its cost is measured too.
    progress: () => {},
  })
  const phase = result.phases[0]
  if (phase === undefined || result.partial)
    throw new Error(`the saturation models phase did not complete: ${result.stopReason ?? 'no phase result'}`)
  // The phase's own clock (just before autocannon starts to just after it ends), not runProfile's planning around it.
  const seconds = (phase.endedAt - phase.startedAt) / 1000
  return {
    answers: phase.answered,
    refused: phase.byStatus['429'] ?? 0,
    errors: Object.values(phase.errors).reduce((a, b) => a + b, 0),
    seconds,
  }
}

/** Timed from outside, as the runner times its phase: from just before autocannon starts to just after it ends. */
async function bareRound(url: string, key: string, durationMs: number, signal: AbortSignal): Promise<Counts> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/v1/models`,
        method: 'GET',
        headers: { authorization: `Bearer ${key}` },
        connections: SATURATION.connections,
        duration: Math.max(1, durationMs / 1000),
        timeout: GENERATOR_EFFICIENCY.timeoutMs / 1000,
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    )
    const stop = (): void => instance.stop()
    signal.addEventListener('abort', stop, { once: true })
    instance.on('done', () => signal.removeEventListener('abort', stop))
  })
  return { answers: result.requests.total, refused: result.statusCodeStats?.['429']?.count ?? 0, errors: result.errors }
}

export async function generatorEfficiency(o: GeneratorEfficiencyOptions): Promise<Row> {
  // autocannon stops at a whole second and on its next 1 s sampling tick: a round may run a second past its length.
  const budgetMs = 2 * (o.warmupMs + o.rounds * o.roundMs) + 4 * (o.rounds + 1) * 1000 + 60_000
  const signal = AbortSignal.timeout(budgetMs)
  const gateway = await startChildGateway({ minuteMs: o.minuteMs })
  try {
    const key = gateway.keys.GATEWAY_API_KEY_TIER5
    if (key === undefined) throw new Error('the gateway child printed no GATEWAY_API_KEY_TIER5')
    const keys: Partial<Record<KeySlotName, string>> = { [GENERATOR_EFFICIENCY.slot]: key }
    const ctx: PlanContext = {
      baseUrl: gateway.url,
      embedded: false,
      minuteMs: o.minuteMs,
      keys,
      tier: null,
      durationMs: o.roundMs,
      rate: null,
      connections: null,
      timeoutMs: GENERATOR_EFFICIENCY.timeoutMs,
      runId: newRunId(),
      getJson: jsonGetter(gateway.url, keys, GENERATOR_EFFICIENCY.timeoutMs),
    }
    const harnessSide = (ms: number): Promise<Side> => measured(gateway.pid, () => harnessRound(ctx, ms, signal))
    const bareSide = (ms: number): Promise<Side> => measured(gateway.pid, () => bareRound(gateway.url, key, ms, signal))
    if (o.warmupMs > 0) {
      await harnessSide(o.warmupMs)
      await bareSide(o.warmupMs)
    }
    const harness: Side[] = []
    const bare: Side[] = []
    for (let round = 0; round < o.rounds; round += 1) {
      if (signal.aborted)
        throw new Error(`generator efficiency ran past its budget of ${(budgetMs / 1000).toFixed(0)} s`)
      // Which side goes first alternates too, so that neither always follows the other into a warmed-up gateway.
      if (round % 2 === 0) {
        harness.push(await harnessSide(o.roundMs))
        bare.push(await bareSide(o.roundMs))
      } else {
        bare.push(await bareSide(o.roundMs))
        harness.push(await harnessSide(o.roundMs))
      }
    }
    const ratios = harness.map((h, i) => h.rate / (bare[i] as Side).rate)
    const ratio = median(ratios)
    const sum = (sides: Side[], pick: (s: Side) => number): number => sides.reduce((n, s) => n + pick(s), 0)
    const refusedShare = (sides: Side[]): string =>
      `${(
        (100 * sum(sides, (s) => s.refused)) /
          Math.max(
            1,
            sum(sides, (s) => s.answers),
          )
      ).toFixed(1)}%`
    // CPU per call shows the generator's own cost even when the gateway, not the generator, bounds the rate.
    const cpuPerCallUs = (sides: Side[], pick: (s: Side) => number): string =>
      (
        (1000 * sum(sides, pick)) /
        Math.max(
          1,
          sum(sides, (s) => s.answers),
        )
      ).toFixed(0)
    const busy = (sides: Side[], pick: (s: Side) => number): string =>
      `${((100 * sum(sides, pick)) / (1000 * sum(sides, (s) => s.wallSeconds))).toFixed(0)}%`
    return {
      benchmark: 'generator efficiency (saturation models phase vs bare autocannon, answers/s)',
      measured: median(harness.map((h) => h.rate)).toFixed(0),
      baseline: median(bare.map((b) => b.rate)).toFixed(0),
      figure: ratio.toFixed(2),
      goal: `>= ${GENERATOR_EFFICIENCY.goal}`,
      met: ratio >= GENERATOR_EFFICIENCY.goal,
      note:
        `${o.rounds} alternating rounds of ${o.roundMs / 1000} s per side after a ${o.warmupMs / 1000} s warm-up, median of the per-round ratios (${ratios.map((r) => r.toFixed(2)).join(', ')}); ` +
        `GET /v1/models with the tier-5 key, ${SATURATION.connections} connections, closed loop, against the reference gateway in a child process (${o.minuteMs} ms minute). ` +
        `Generator CPU per call: harness ${cpuPerCallUs(harness, (s) => s.generatorCpuMs)} us, bare ${cpuPerCallUs(bare, (s) => s.generatorCpuMs)} us; ` +
        `CPU busy (of one core) generator/gateway: harness ${busy(harness, (s) => s.generatorCpuMs)}/${busy(harness, (s) => s.gatewayCpuMs)}, bare ${busy(bare, (s) => s.generatorCpuMs)}/${busy(bare, (s) => s.gatewayCpuMs)}; ` +
        `429s: harness ${refusedShare(harness)}, bare ${refusedShare(bare)}; calls without an answer: harness ${sum(harness, (s) => s.errors)}, bare ${sum(bare, (s) => s.errors)}.`,
    }
  } finally {
    await gateway.close()
  }
}
