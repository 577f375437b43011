/**
 * npm run bench [-- --quick] [-- --only generator,gateway,limiter,memory]: the speed and memory goals,
 * measured side by side in one run and printed as one table. Ratios of two things measured together in alternating
 * rounds, never absolute timings as pass/fail (these machines are shared and noisy: a ratio survives that, an
 * absolute figure not); counts where the goal is a count (the limiter) or a ceiling (memory). Loopback only, and
 * every part bounded in time.
 *
 * --quick (or BENCH_QUICK=1) shortens every part so that the whole bench is a smoke test of under a minute; its
 * figures are noisier and not the ones to quote.
 */
import { parseArgs } from 'node:util'
import { GENERATOR_EFFICIENCY, generatorEfficiency } from './bench/generator-efficiency.ts'
import { GATEWAY_COST, gatewayCost } from './bench/gateway-cost.ts'
import { limiterAccuracy } from './bench/limiter-accuracy.ts'
import { MEMORY, memory } from './bench/memory.ts'
import { OPEN_LOOP_LIMIT, openLoopLimit } from './bench/open-loop-limit.ts'
import { RSS_GROWTH, rssGrowth } from './bench/rss-growth.ts'
import { errorRow, formatTable, type Row } from './bench/table.ts'
import { ensureWrk } from './bench/wrk.ts'

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
    generator: { rounds: 5, roundMs: 5000, warmupMs: 2000, minuteMs: CHILD_MINUTE_MS }, // rounds vary by +-10 %: five for a steady median
    gateway: { rounds: 5, requestsPerRound: 2000, warmupRequests: 500 },
    limiter: { minutes: 20 },
    memory: { phaseMs: 30_000, minuteMs: CHILD_MINUTE_MS }, // two phases: a minute of load in all
    openLoop: { rounds: 3, probeMs: 3000, refinements: 3 },
    rssGrowth: { shortMs: 60_000, minuteMs: CHILD_MINUTE_MS }, // and the long run five times as long, beside it
    watchdogMs: 25 * 60_000,
  },
  quick: {
    generator: { rounds: 3, roundMs: 1000, warmupMs: 1000, minuteMs: CHILD_MINUTE_MS },
    gateway: { rounds: 3, requestsPerRound: 500, warmupRequests: 200 },
    limiter: { minutes: 5 },
    memory: { phaseMs: 5000, minuteMs: CHILD_MINUTE_MS },
    openLoop: { rounds: 1, probeMs: 1000, refinements: 1 },
    rssGrowth: { shortMs: 5000, minuteMs: CHILD_MINUTE_MS },
    watchdogMs: 4 * 60_000,
  },
}

const PARTS = ['generator', 'open-loop', 'gateway', 'limiter', 'memory', 'rss-growth'] as const
type Part = (typeof PARTS)[number]

const USAGE = `Usage: npm run bench [-- --quick] [-- --only ${PARTS.join(',')}]
  --quick        every part shortened (also BENCH_QUICK=1): a smoke test of under a minute
  --only LIST    only these parts, comma-separated
`

function parseCommandLine(): { quick: boolean; parts: Part[] } | null {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: { quick: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  if (values.help) return null
  const only = values.only
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean) ?? [...PARTS]
  const unknown = only.filter((p) => !(PARTS as readonly string[]).includes(p))
  if (unknown.length > 0) throw new Error(`--only: unknown part ${unknown.join(', ')}; the parts: ${PARTS.join(', ')}`)
  return { quick: values.quick === true || process.env.BENCH_QUICK === '1', parts: only as Part[] }
}

let command: ReturnType<typeof parseCommandLine>
try {
  command = parseCommandLine()
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message.split('\n')[0]}\n${USAGE}`)
  process.exit(2)
}
if (command === null) {
  process.stdout.write(USAGE)
  process.exit(0)
}

const { quick, parts } = command
const settings = quick ? SETTINGS.quick : SETTINGS.full
const rows: Row[] = []
const started = performance.now()
const say = (line: string): void => {
  process.stderr.write(`bench: ${line} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`)
}

// Each part bounds itself; this is the last resort. process.exit runs the children's exit handler, which kills them.
const watchdog = setTimeout(() => {
  process.stdout.write(
    `${formatTable(rows)}\nbench: stopped after ${settings.watchdogMs / 1000} s, its overall bound; the parts missing from the table did not finish\n`,
  )
  process.exit(2)
}, settings.watchdogMs)
watchdog.unref()
// Ended by a signal, node would skip the exit handlers and leave the gateway and generator children running.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

const benchmarks: Record<Part, { name: string; goal: string; run: () => Promise<Row | Row[]> }> = {
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
    run: () => gatewayCost(settings.gateway),
  },
  limiter: {
    name: 'limiter accuracy',
    goal: 'within the bounds in every mode',
    run: () => limiterAccuracy(settings.limiter),
  },
  memory: { name: 'memory', goal: `< ${MEMORY.goalMb} MB each`, run: () => memory(settings.memory) },
  'rss-growth': { name: 'memory over time', goal: `<= ${RSS_GROWTH.goal}`, run: () => rssGrowth(settings.rssGrowth) },
}

// The open-loop part measures against wrk too: installed now, before any part's clock runs, when it can be.
if (parts.includes('open-loop')) await ensureWrk(say)

let failed = 0
for (const part of parts) {
  const b = benchmarks[part]
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
const seconds = ((performance.now() - started) / 1000).toFixed(0)
process.stdout.write(
  `${formatTable(rows)}\n${unmet.length === 0 ? 'every goal met' : `goal NOT met: ${unmet.join('; ')}`} (${quick ? 'quick, figures not to quote' : 'full'}; ${seconds} s)\n`,
)
// A goal not met is a figure to read, not an error of the bench (as before); a part that could not run is one.
process.exitCode = failed > 0 ? 2 : 0
