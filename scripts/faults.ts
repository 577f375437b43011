/**
 * npm run faults [-- --fault a,b] [--workers N] [--scope families|files] [--limiters] [--json FILE]: the fault score
 * (proof/fault-runs.ts runs it); this file reads the flags and prints the table.
 */
import { appendFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONFORMANCE_FAULTS } from '../gateway/faults/registry.ts'
import { type FaultResult, faultTable, runFaults, type Scope } from '../proof/fault-runs.ts'
import { FAULT_RUN_DEFAULTS } from '../proof/run-defaults.ts'
import { FAULTS_USAGE, type FaultsFlags, parseFaultsFlags } from './faults-flags.ts'

async function main(argv: string[]): Promise<number> {
  let values: FaultsFlags
  try {
    values = parseFaultsFlags(argv)
  } catch (error) {
    process.stderr.write(`faults: ${(error as Error).message.split('\n')[0]} (see --help)\n`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(FAULTS_USAGE)
    return 0
  }
  const workersRaw = values.workers ?? String(FAULT_RUN_DEFAULTS.workers)
  if (!/^[1-9]\d{0,2}$/.test(workersRaw)) {
    process.stderr.write(`faults: --workers is a whole number from 1 to 999 (got "${workersRaw}")\n`)
    return 2
  }
  if (values.scope !== undefined && values.scope !== 'files' && values.scope !== 'families') {
    process.stderr.write(`faults: --scope is files or families (got "${values.scope}")\n`)
    return 2
  }
  const scope: Scope = values.scope ?? 'families'
  const names = values.fault
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  const unknown = names?.filter((n) => !CONFORMANCE_FAULTS.some((f) => f.name === n)) ?? []
  if (unknown.length > 0) {
    process.stderr.write(`faults: unknown fault ${unknown.join(', ')}; see npm run gateway -- --fault list\n`)
    return 2
  }
  // Load-only faults (no requirement in `breaks`) are proved by test/load, not by a conformance run.
  const selected = names ? CONFORMANCE_FAULTS.filter((f) => names.includes(f.name)) : CONFORMANCE_FAULTS
  const workers = Number(workersRaw)
  const started = performance.now()
  // With --json, each result is also appended as a line to FILE.partial as it is judged: a run stopped at a bound
  // (SIGTERM, a CI step's timeout) still leaves every result it reached.
  const partial = values.json ? resolve(`${values.json}.partial`) : undefined
  if (partial) writeFileSync(partial, '')
  const onResult = (result: FaultResult): void => {
    if (partial) appendFileSync(partial, `${JSON.stringify(result)}\n`)
  }
  const results = await runFaults(selected, workers, scope, values.limiters === true, onResult)
  if (values.json) writeFileSync(resolve(values.json), `${JSON.stringify(results, null, 2)}\n`)
  const clean = results.filter((r) => r.detected && r.collateral.length === 0).length
  process.stdout.write(
    `${faultTable(results)}\n\n${clean} of ${results.length} runs detected their fault (or, clean, failed nothing) with no collateral, in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  )
  return clean === results.length ? 0 : 1
}

/** The faults command: the exit code; bad options are one line on stderr. */
export async function faultsCommand(argv: string[]): Promise<number> {
  return main(argv)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await faultsCommand(process.argv.slice(2))
}
