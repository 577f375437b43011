/**
 * Renders a conformance run's allure-results with Allure 3 (the `allure` npm package: no Java) into one
 * self-contained HTML page, and keeps Allure's history in a JSON Lines file (one line per report) so that the
 * next report shows trends. The history file lives outside the run folder, so that CI can cache it between jobs.
 *
 * Allure 3 takes the history file's place only from a config file (historyPath), not from a flag: we write one
 * into a scratch folder for each report and hand it to `allure generate`, run as a child process through the
 * package's own CLI (its programmatic API is in its internal @allurereport/* packages).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError, HarnessError } from '../errors.ts'
import type { Summary } from './summary.ts'
import { withFixFirst } from './causes.ts'

export const ALLURE_HISTORY_ENV = 'GATEWAY_ALLURE_HISTORY'

export const REPORT_DEFAULTS = {
  results: 'reports/latest/allure-results',
  history: 'reports/allure-history.jsonl',
  /** Reports whose results the history keeps: enough for trends, small enough for a CI cache (a few MB). */
  historyLimit: 50,
  name: 'Gateway conformance',
  /** `allure generate` takes about a second for a family and a few for a full run; this only catches a hang. */
  timeoutMs: 300_000,
}

interface ReportOptions {
  results: string
  output: string
  history: string
  historyLimit: number
  name: string
}

export interface ReportFlags {
  results?: string
  output?: string
  history?: string
  'history-limit'?: string
  name?: string
}

/** Flags over the environment over the defaults; paths resolved against `cwd`. The report goes beside the results. */
export function resolveReportOptions(
  flags: ReportFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): ReportOptions {
  const results = resolve(cwd, flags.results ?? REPORT_DEFAULTS.results)
  const output = resolve(cwd, flags.output ?? join(dirname(results), 'allure-report'))
  const historyRaw = flags.history ?? (env[ALLURE_HISTORY_ENV] || undefined) ?? REPORT_DEFAULTS.history
  let historyLimit = REPORT_DEFAULTS.historyLimit
  if (flags['history-limit'] !== undefined) {
    if (!/^\d+$/.test(flags['history-limit']) || Number(flags['history-limit']) < 1)
      throw new ConfigError(
        `--history-limit must be a whole number of reports, 1 or more (got "${flags['history-limit']}")`,
      )
    historyLimit = Number(flags['history-limit'])
  }
  return { results, output, history: resolve(cwd, historyRaw), historyLimit, name: flags.name ?? REPORT_DEFAULTS.name }
}

/** The number of test results in a results folder; 0 when the folder is missing. */
function countResults(results: string): number {
  if (!existsSync(results) || !statSync(results).isDirectory()) return 0
  return readdirSync(results).filter((name) => name.endsWith('-result.json')).length
}

/** Reports the history file holds (one JSON line each). */
export function historyEntries(history: string): number {
  if (!existsSync(history)) return 0
  return readFileSync(history, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length
}

/** Allure's config: the awesome report as one file, its tree by part, family and requirement. */
function allureConfig(o: ReportOptions): Record<string, unknown> {
  return {
    name: o.name,
    output: o.output,
    historyPath: o.history,
    historyLimit: o.historyLimit,
    plugins: {
      awesome: {
        options: {
          reportName: o.name,
          // One HTML file that opens from disk or a CI artifact, with no server (the multi-file report fetches its data).
          singleFile: true,
          groupBy: ['epic', 'feature', 'story'],
        },
      },
    },
  }
}

const ALLURE_CLI = fileURLToPath(new URL('../cli.js', import.meta.resolve('allure')))

interface ReportOutcome {
  tests: number
  index: string
  historyEntries: number
}

export async function renderAllureReport(
  o: ReportOptions,
  timeoutMs: number = REPORT_DEFAULTS.timeoutMs,
): Promise<ReportOutcome> {
  const tests = countResults(o.results)
  if (tests === 0)
    throw new ConfigError(`no Allure results in ${o.results}: run npm run conformance first, or pass --results DIR`)
  mkdirSync(dirname(o.history), { recursive: true })
  const scratch = mkdtempSync(join(tmpdir(), 'gc-allure-'))
  try {
    const config = join(scratch, 'allurerc.json')
    writeFileSync(config, `${JSON.stringify(allureConfig(o), null, 2)}\n`)
    await runAllure(['generate', o.results, '--config', config, '--output', o.output, '--cwd', scratch], timeoutMs)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  const index = join(o.output, 'index.html')
  if (!existsSync(index)) throw new HarnessError('INTERNAL', `allure generate wrote no ${index}`)
  placeFixFirst(index, join(dirname(o.results), 'summary.json'))
  return { tests, index, historyEntries: historyEntries(o.history) }
}

/** The run's Fix first (summary.json beside the results), placed first in the page; nothing when there is none. */
function placeFixFirst(index: string, summaryFile: string): void {
  if (!existsSync(summaryFile)) return
  let summary: Pick<Summary, 'fixFirst'>
  try {
    summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Pick<Summary, 'fixFirst'>
  } catch {
    return // results copied without their summary, or a summary being written: the report stands without it
  }
  if ((summary.fixFirst ?? []).length === 0) return
  writeFileSync(index, withFixFirst(readFileSync(index, 'utf8'), summary.fixFirst ?? []))
}

async function runAllure(args: string[], timeoutMs: number): Promise<void> {
  const child = spawn(process.execPath, [ALLURE_CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  try {
    const code = await new Promise<number | null>((resolveExit, reject) => {
      child.once('error', reject)
      child.once('close', (exitCode) => resolveExit(exitCode))
    })
    if (code !== 0) {
      const last =
        output
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '')
          .slice(-1)[0] ?? 'no output'
      throw new HarnessError('INTERNAL', `allure generate failed (exit ${code ?? 'killed'}): ${last}`)
    }
  } finally {
    clearTimeout(timer)
  }
}
