/**
 * npm run conformance [-- flags] [vitest file filters]
 * Runs the conformance suites against GATEWAY_BASE_URL, or against the embedded reference gateway when none is
 * set. Exit codes: 0 conformant and complete; 1 a MUST failed; 2 harness error or bad configuration; 3 no MUST
 * failed but some MUST was skipped.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import AllureReporter from 'allure-vitest/reporter'
import { createVitest } from 'vitest/node'
import { CONFORMANCE_PROJECTS } from '../harness/projects.ts'
import { catalogue, families } from '../harness/catalogue.ts'
import { DEFAULTS, loadEnv, resolveOptions, type FlagValues, type RunOptions } from '../harness/config.ts'
import { readRemainingUsd } from '../harness/credit.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'
import { ConformanceReporter } from '../harness/reporter.ts'
import { EXIT } from '../harness/results.ts'
import { newRunId, prepareTarget, type PreparedTarget } from '../harness/target.ts'
import { listRequirements } from './list-requirements.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

const USAGE = `Usage: npm run conformance -- [options] [file filters]

Runs the Model Gateway API conformance suites. Without GATEWAY_BASE_URL (or --base-url) the embedded
reference gateway is started on a loopback port and tested.

Options (each overrides the environment variable named):
  --base-url URL          host root of the target, no path            (GATEWAY_BASE_URL)
  --family a,b            run only these families: ${families().join(', ')}
  --grep PATTERN, -t      run only tests whose name matches, e.g. a requirement id prefix such as P1-4.1
  --as-of YYYY-MM-DD      date that date-dependent rules are judged at (GATEWAY_AS_OF; default today, UTC)
  --report-dir DIR        where reports/<run-id>/ and latest go (default reports)
  --list-requirements     print the requirement catalogue and the tests that check each, then exit
  -h, --help              this text

Keys come from GATEWAY_API_KEY, GATEWAY_API_KEY_TIER0..5 and GATEWAY_SUSPENDED_API_KEY (environment or .env).
Exit codes: 0 conformant, 1 a MUST requirement failed, 2 harness error or bad configuration,
            3 no MUST failed but some MUST requirement was skipped (the run is incomplete).
`

function parseFlags(argv: string[]): { flags: FlagValues; filters: string[]; help: boolean; list: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        family: { type: 'string' },
        grep: { type: 'string', short: 't' },
        'as-of': { type: 'string' },
        'report-dir': { type: 'string' },
        'list-requirements': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const { help, 'list-requirements': list, ...flags } = values
    return { flags, filters: positionals, help: help === true, list: list === true }
  } catch (error) {
    // node:util words these well ("Unknown option '--x'"); add where to look.
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run conformance -- --help)`)
  }
}

function fileFilters(options: RunOptions): string[] {
  const familyDirs = options.families?.map((family) => `suites/${family}/`) ?? []
  return [...familyDirs, ...options.filters]
}

async function run(argv: string[]): Promise<number> {
  const { flags, filters, help, list } = parseFlags(argv)
  if (help) {
    process.stdout.write(USAGE)
    return 0
  }
  const options = resolveOptions(loadEnv(process.env), flags, filters, families())
  if (list) {
    process.stdout.write(await listRequirements(ROOT))
    return 0
  }
  const runId = newRunId()
  const reportRoot = resolve(process.cwd(), options.reportDir)
  const runDir = resolve(reportRoot, runId)
  const target: PreparedTarget = await prepareTarget(options, runId)
  try {
    const where = target.config.embedded ? `${target.config.baseUrl} (embedded reference gateway)` : target.config.baseUrl
    process.stdout.write(`Gateway conformance ${PACKAGE.version}: ${where}, as-of ${options.asOf}, families ${options.families?.join(', ') ?? 'all'}, ${catalogue().size} requirements\n`)
    const readCredit = () => readRemainingUsd(target.config)
    const reporter = new ConformanceReporter({ target: target.config, options, runDir, reportRoot, root: ROOT, tool: PACKAGE, readCredit })
    const allure = new AllureReporter({ resultsDir: resolve(runDir, 'allure-results') })
    const vitest = await createVitest('test', {
      root: ROOT,
      project: CONFORMANCE_PROJECTS,
      watch: false,
      maxWorkers: DEFAULTS.suiteWorkers,
      reporters: [reporter, allure],
      ...(options.grep === null ? {} : { testNamePattern: options.grep }),
    })
    vitest.provide('runConfig', target.config)
    try {
      const filters = fileFilters(options)
      if ((await vitest.globTestSpecifications(filters)).length === 0) {
        throw new ConfigError(`no suite file matches ${filters.map((f) => `"${f}"`).join(', ')}; suites live in suites/<family>/`)
      }
      await vitest.start(filters)
    } finally {
      await vitest.close()
    }
    if (reporter.summary === undefined) {
      process.stderr.write('conformance: no test ran (check the file filters and --family)\n')
      return EXIT.error
    }
    return reporter.exitCode
  } finally {
    await target.close()
  }
}

try {
  process.exitCode = await run(process.argv.slice(2))
} catch (error) {
  if (isHarnessError(error)) {
    process.stderr.write(`conformance: ${error.message.replace(/^\[[A-Z_]+\] /, '')}\n`)
    process.exitCode = EXIT.error
  } else {
    process.stderr.write(`conformance: internal error: ${(error as Error).stack ?? String(error)}\n`)
    process.exitCode = EXIT.error
  }
}
