/**
 * gateway-conformance <command> [options]: the package's one command. Each command is a module of its own; this
 * file reads the config file, then hands the rest of the command line to the command.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

export const COMMANDS = ['conformance', 'load', 'gateway', 'report', 'sweep', 'merge', 'compare', 'faults'] as const
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

Every command takes -h or --help. Settings come from flags, then the environment (and .env), then the config file:
  --config FILE   the config file (default: gateway-conformance.yaml in the working folder, if there is one);
                  its JSON Schema is schemas/config/config.schema.json
  --version       print the version
`

type Runner = (argv: string[]) => Promise<number | undefined>

/** Each command's module is loaded only when asked for: the gateway alone need not load vitest. */
const RUNNERS: Record<Command, () => Promise<Runner>> = {
  conformance: async () => (await import('./conformance.ts')).conformanceCommand,
  sweep: async () => {
    const { conformanceCommand } = await import('./conformance.ts')
    return (argv) => conformanceCommand(['sweep', ...argv])
  },
  merge: async () => {
    const { conformanceCommand } = await import('./conformance.ts')
    return (argv) => conformanceCommand(['merge', ...argv])
  },
  load: async () => (await import('./load.ts')).runLoadCli,
  compare: async () => {
    const { runLoadCli } = await import('./load.ts')
    return (argv) => runLoadCli(['compare', ...argv])
  },
  gateway: async () => (await import('./gateway.ts')).gatewayCommand,
  report: async () => (await import('./report.ts')).reportCommand,
  faults: async () => (await import('./faults.ts')).faultsCommand,
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
  const runner = await RUNNERS[first]()
  return runner(rest)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await cli(process.argv.slice(2))
  if (code !== undefined) process.exitCode = code
}
