/**
 * npm run bench [-- --quick] [-- --only generator,gateway,limiter,memory]: the speed and memory goals, measured
 * side by side in one run and printed as one table (the bench is bench/run.ts; this file reads its flags).
 *
 * --quick (or BENCH_QUICK=1) shortens every part so that the whole bench is a smoke test of under a minute; its
 * figures are noisier and not the ones to quote.
 */
import { parseArgs } from 'node:util'
import { BENCH_PARTS, type BenchPart, runBench } from '../bench/run.ts'

const USAGE = `Usage: npm run bench [-- --quick] [-- --only ${BENCH_PARTS.join(',')}]
  --quick        every part shortened (also BENCH_QUICK=1): a smoke test of under a minute
  --only LIST    only these parts, comma-separated
`

function parseCommandLine(): { quick: boolean; parts: BenchPart[] } | null {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: { quick: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  if (values.help) return null
  const only = values.only
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean) ?? [...BENCH_PARTS]
  const unknown = only.filter((p) => !(BENCH_PARTS as readonly string[]).includes(p))
  if (unknown.length > 0)
    throw new Error(`--only: unknown part ${unknown.join(', ')}; the parts: ${BENCH_PARTS.join(', ')}`)
  return { quick: values.quick === true || process.env.BENCH_QUICK === '1', parts: only as BenchPart[] }
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
process.exitCode = await runBench(command)
