/**
 * gateway-conformance <command> [options]: the package's one command. Each command is a module of its own; this
 * file reads the config file, then hands the rest of the command line to the command.
 */
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { ConfigError, isHarnessError } from '../harness/errors.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

export const COMMANDS = [
  'conformance',
  'load',
  'gateway',
  'report',
  'sweep',
  'merge',
  'compare',
  'faults',
  'openapi',
] as const
export type Command = (typeof COMMANDS)[number]

export const CLI_USAGE = `Usage: gateway-conformance <command> [options]      (${PACKAGE.name} ${PACKAGE.version})

Conformance suite and load harness for the Model Gateway API. Without a target (GATEWAY_BASE_URL, --base-url or
the config file's target) every command tests the embedded reference gateway on a loopback port.

Commands:
  conformance   run the conformance suites; exit 0 passed, 1 a MUST failed, 2 harness or configuration
                error, 3 incomplete (a MUST skipped). Only a whole run prints CONFORMANT
  load          run a load profile against the rate limits (--list shows the profiles)
  gateway       run the reference gateway until Ctrl-C
  report        render the Allure HTML report of a conformance run
  sweep         list, and with --yes delete, what earlier runs left on the target
  merge         merge the reports of shards or split runs
  compare       compare two load runs for regressions
  faults        the fault score: the suites against every named fault of the reference gateway
  openapi       print the OpenAPI 3.1 document of the reference API, generated from the schemas

Every command takes -h or --help. Settings come from flags, then the environment (and .env), then the config file:
  --config FILE   the config file (default: gateway-conformance.yaml in the working folder, if there is one);
                  its JSON Schema is schemas/config/config.schema.json
  --version       print the version
`

type Runner = (argv: string[]) => Promise<number | undefined>

/** Each command's module is loaded only when asked for: the gateway alone need not load vitest. */
const RUNNERS: Record<Command, () => Promise<Runner>> = {
  conformance: async () => (await import('../harness/command/conformance.ts')).conformanceCommand,
  sweep: async () => {
    const { conformanceCommand } = await import('../harness/command/conformance.ts')
    return (argv) => conformanceCommand(['sweep', ...argv])
  },
  merge: async () => {
    const { conformanceCommand } = await import('../harness/command/conformance.ts')
    return (argv) => conformanceCommand(['merge', ...argv])
  },
  load: async () => (await import('../load/command/index.ts')).runLoadCli,
  compare: async () => {
    const { runLoadCli } = await import('../load/command/index.ts')
    return (argv) => runLoadCli(['compare', ...argv])
  },
  gateway: async () => (await import('../gateway/command.ts')).gatewayCommand,
  report: async () => (await import('./report.ts')).reportCommand,
  faults: async () => (await import('./faults.ts')).faultsCommand,
  openapi: async () => (await import('./openapi.ts')).openapiCommand,
}

/**
 * Each command's usage when its command line asks for it, else undefined: read from the modules that hold its flags
 * and help text, so that help loads no runner. Each parses as its command does, so that they agree on what is help.
 */
const HELP: Record<Command, (argv: string[]) => Promise<string | undefined>> = {
  conformance: async (argv) => {
    if (argv[0] === 'sweep' || argv[0] === 'merge') return HELP[argv[0]](argv.slice(1))
    const { parseFlags, USAGE } = await import('../harness/command/conformance-flags.ts')
    return parseFlags(argv).help ? USAGE : undefined
  },
  sweep: async (argv) => {
    const { parseSweepFlags, SWEEP_USAGE } = await import('../harness/command/sweep-flags.ts')
    return parseSweepFlags(argv).help === true ? SWEEP_USAGE : undefined
  },
  merge: async (argv) => {
    const { parseMergeFlags, MERGE_USAGE } = await import('../harness/command/merge-flags.ts')
    return parseMergeFlags(argv).values.help === true ? MERGE_USAGE : undefined
  },
  load: async (argv) => {
    if (argv[0] === 'compare') return HELP.compare(argv.slice(1))
    const { parseFlags, helpText } = await import('../load/command/flags.ts')
    return parseFlags(argv).flags.help === true ? helpText() : undefined
  },
  compare: async (argv) => {
    const { parseCompareArgs, COMPARE_USAGE } = await import('../load/command/compare-flags.ts')
    return parseCompareArgs(argv).values.help === true ? COMPARE_USAGE : undefined
  },
  gateway: async (argv) => {
    const { parseCli, USAGE } = await import('../gateway/flags.ts')
    return parseCli(argv).values.help === true ? USAGE : undefined
  },
  report: async (argv) => {
    const { parseFlags, USAGE } = await import('./report-flags.ts')
    return parseFlags(argv).help ? USAGE : undefined
  },
  faults: async (argv) => {
    const { parseFaultsFlags, FAULTS_USAGE } = await import('./faults-flags.ts')
    return parseFaultsFlags(argv).help === true ? FAULTS_USAGE : undefined
  },
  openapi: async (argv) => {
    const { parseFlags, USAGE } = await import('./openapi-flags.ts')
    return parseFlags(argv).help ? USAGE : undefined
  },
}

/** The usage if the command line asks for it; a command line its command refuses is left to the command to say. */
async function usageAsked(command: Command, argv: string[]): Promise<string | undefined> {
  try {
    return await HELP[command](argv)
  } catch {
    return undefined
  }
}

/** The commands that read settings; the gateway, the fault score and compare have none a config file holds. */
const CONFIGURED: readonly Command[] = ['conformance', 'load', 'sweep', 'merge', 'report']

/** Takes --config FILE (or --config=FILE) out of the command line: the commands themselves do not know it. */
export function takeConfigFlag(argv: readonly string[]): { file: string | undefined; rest: string[] } {
  const rest: string[] = []
  let file: string | undefined
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string
    if (arg === '--config') {
      file = argv[i + 1]
      if (file === undefined || file.startsWith('-')) throw new ConfigError('--config needs a file: --config FILE')
      i += 1
    } else if (arg.startsWith('--config=')) file = arg.slice('--config='.length)
    else rest.push(arg)
  }
  return { file, rest }
}

/**
 * Reads the config file (the one named, else gateway-conformance.yaml here if there is one) into the environment
 * and the command line, under what either already says. Returns the command line to hand on.
 */
async function configure(command: Command, argv: string[]): Promise<string[]> {
  const { file, rest } = takeConfigFlag(argv)
  // Loaded here, not above: help, --version and an unknown command need neither its schema checker nor its YAML.
  const { applyConfigFile, DEFAULT_CONFIG_FILE, readConfigFile } = await import('../harness/setup/config-file.ts')
  const path = file ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined)
  if (path === undefined) return rest
  if (!CONFIGURED.includes(command)) {
    if (file !== undefined) throw new ConfigError(`${command} reads no config file; drop --config`)
    return rest
  }
  const config = readConfigFile(resolve(path), path)
  const [{ loadEnv }, { families }] = await Promise.all([
    import('../harness/setup/config.ts'),
    import('../harness/requirements.ts'),
  ])
  const applied = applyConfigFile(config, path, command, loadEnv(process.env), rest, families())
  for (const [name, value] of Object.entries(applied.env)) if (value !== undefined) process.env[name] = value
  return applied.argv
}

function isCommand(word: string | undefined): word is Command {
  return (COMMANDS as readonly string[]).includes(word ?? '')
}

/** The exit code, or undefined while a command (the gateway) keeps running. */
export async function cli(argv: string[]): Promise<number | undefined> {
  const [first, ...rest] = argv
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    process.stdout.write(CLI_USAGE)
    return first === undefined ? 2 : 0
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${PACKAGE.version}\n`)
    return 0
  }
  if (!isCommand(first)) {
    process.stderr.write(
      `gateway-conformance: unknown command "${first}": choose from ${COMMANDS.join(', ')} (see --help)\n`,
    )
    return 2
  }
  const help = rest.includes('-h') || rest.includes('--help')
  let argvOfCommand: string[]
  try {
    // Help needs no settings, and must work whatever the file says.
    argvOfCommand = help ? takeConfigFlag(rest).rest : await configure(first, rest)
  } catch (error) {
    if (!isHarnessError(error)) throw error
    process.stderr.write(`${first}: ${error.message}\n`)
    return 2
  }
  const usage = help ? await usageAsked(first, argvOfCommand) : undefined
  if (usage !== undefined) {
    process.stdout.write(usage)
    return 0
  }
  const runner = await RUNNERS[first]()
  return runner(argvOfCommand)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await cli(process.argv.slice(2))
  if (code !== undefined) process.exitCode = code
}
