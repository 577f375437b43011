/**
 * The bench: the speed and memory goals, measured side by side in one run and printed as one table. Ratios of two
 * things measured together in alternating rounds, never absolute timings as pass/fail (these machines are shared and
 * noisy: a ratio survives that, an absolute figure not); counts where the goal is a count (the limiter) or a ceiling
 * (memory). Loopback only, and every part bounded in time. scripts/bench.ts hands it the command line's choices.
 *
 * Quick shortens every part so that the whole bench is a smoke test of under a minute; its figures are noisier and
 * not the ones to quote.
 */
import { GATEWAY_COST, gatewayCostInChild } from './gateway-cost.ts'
import { GENERATOR_EFFICIENCY, generatorEfficiency } from './generator-efficiency.ts'
import { limiterAccuracy } from './limiter-accuracy.ts'
import { MEMORY, memory } from './memory.ts'
import { OPEN_LOOP_LIMIT, openLoopLimit } from './open-loop-limit.ts'
import { RSS_GROWTH, rssGrowth } from './rss-growth.ts'
import { errorRow, formatTable, type Row } from './table.ts'
import { ensureWrk } from './wrk.ts'

/**
 * The rate-limit minute of the gateway children. Not the real 60 s: tier 5's 30,000 calls a minute last a few
 * seconds at saturation, after which the gateway answers 429. Generator efficiency would then measure refusals,
 * and its later rounds could not even plan (the saturation profile reads GET /v1/models first, and gets a 429);
 * the memory run's responses phase would be refused whole, so that the stored responses, the heaviest thing the
 * gateway keeps, would never be measured. On a one-second minute 30,000 calls a second is far above what the
 * gateway answers: the limiter does all its work on every call and refuses none.
 */
const CHILD_MINUTE_MS = 1000

const SETTINGS = {
  full: {
    // Rounds vary by +-10 %: five for a steady median.
    generator: { rounds: 5, roundMs: 5000, warmupMs: 2000, minuteMs: CHILD_MINUTE_MS },
    // Rounds of about a second each; a warm-up that fills the gateway's transaction ring (gateway-cost.ts).
    gateway: { rounds: 7, requestsPerRound: 8000, warmupRequests: 12_000 },
    gatewayChildMs: 5 * 60_000,
    limiter: { minutes: 20 },
    memory: { phaseMs: 30_000, minuteMs: CHILD_MINUTE_MS }, // two phases: a minute of load in all
    openLoop: { rounds: 3, probeMs: 3000, refinements: 3 },
    rssGrowth: { shortMs: 60_000, minuteMs: CHILD_MINUTE_MS }, // and the long run five times as long, beside it
    watchdogMs: 25 * 60_000,
  },
  quick: {
    generator: { rounds: 3, roundMs: 1000, warmupMs: 1000, minuteMs: CHILD_MINUTE_MS },
    gateway: { rounds: 3, requestsPerRound: 2000, warmupRequests: 2000 },
    gatewayChildMs: 60_000,
    limiter: { minutes: 5 },
    memory: { phaseMs: 5000, minuteMs: CHILD_MINUTE_MS },
    openLoop: { rounds: 1, probeMs: 1000, refinements: 1 },
    rssGrowth: { shortMs: 5000, minuteMs: CHILD_MINUTE_MS },
    watchdogMs: 4 * 60_000,
  },
}
type Settings = typeof SETTINGS.full

/** The parts of the bench, in the order they run. */
export const BENCH_PARTS = ['generator', 'open-loop', 'gateway', 'limiter', 'memory', 'rss-growth'] as const
export type BenchPart = (typeof BENCH_PARTS)[number]

interface Benchmark {
  name: string
  goal: string
  run: () => Promise<Row | Row[]>
}

function benchmarks(settings: Settings): Record<BenchPart, Benchmark> {
  return {
    generator: {
      name: 'generator efficiency',
      goal: `>= ${GENERATOR_EFFICIENCY.goal}`,
      run: () => generatorEfficiency(settings.generator),
    },
    'open-loop': {
      name: 'open-loop limit',
      goal: `>= ${OPEN_LOOP_LIMIT.goal} of autocannon`,
      run: () => openLoopLimit(settings.openLoop),
    },
    gateway: {
      name: 'reference gateway cost',
      goal: `>= ${GATEWAY_COST.goal}`,
      run: () => gatewayCostInChild(settings.gateway, settings.gatewayChildMs),
    },
    limiter: {
      name: 'limiter accuracy',
      goal: 'within the bounds in every mode',
      run: () => limiterAccuracy(settings.limiter),
    },
    memory: { name: 'memory', goal: `< ${MEMORY.goalMb} MB each`, run: () => memory(settings.memory) },
    'rss-growth': { name: 'memory over time', goal: `<= ${RSS_GROWTH.goal}`, run: () => rssGrowth(settings.rssGrowth) },
  }
}

/**
 * Runs the chosen parts and prints the table on stdout, progress on stderr. Resolves with the exit code: 2 when a
 * part could not run, 0 otherwise (a goal not met is a figure to read, not an error of the bench).
 */
export async function runBench(choice: { quick: boolean; parts: readonly BenchPart[] }): Promise<number> {
  const { quick, parts } = choice
  const settings = quick ? SETTINGS.quick : SETTINGS.full
  const rows: Row[] = []
  const started = performance.now()
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(0)
  const say = (line: string): void => {
    process.stderr.write(`bench: ${line} (${seconds()} s)\n`)
  }

  // Each part bounds itself; this is the last resort. process.exit runs the children's exit handler, which kills them.
  const watchdog = setTimeout(() => {
    process.stdout.write(
      `${formatTable(rows)}\nbench: stopped after ${settings.watchdogMs / 1000} s, its overall bound; ` +
        'the parts missing from the table did not finish\n',
    )
    process.exit(2)
  }, settings.watchdogMs)
  watchdog.unref()
  // Ended by a signal, node would skip the exit handlers and leave the gateway and generator children running.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

  // The open-loop part measures against wrk too: installed now, before any part's clock runs, when it can be.
  if (parts.includes('open-loop')) await ensureWrk(say)

  const table = benchmarks(settings)
  let failed = 0
  for (const part of parts) {
    const b = table[part]
    say(`${b.name}...`)
    try {
      rows.push(...[await b.run()].flat())
    } catch (error) {
      failed += 1
      rows.push(errorRow(b.name, b.goal, error))
    }
  }
  clearTimeout(watchdog)
  const unmet = rows.filter((r) => r.met === false).map((r) => r.benchmark.split(' (')[0])
  const verdict = unmet.length === 0 ? 'every goal met' : `goal NOT met: ${unmet.join('; ')}`
  process.stdout.write(
    `${formatTable(rows)}\n${verdict} (${quick ? 'quick, figures not to quote' : 'full'}; ${seconds()} s)\n`,
  )
  return failed > 0 ? 2 : 0
}
