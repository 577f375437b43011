/**
 * Every command of the package's one command line answers -h and --help with its usage and exit 0, and a wrong
 * option or command is one line and exit 2, never a stack trace.
 */
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { COMMANDS } from '../../scripts/cli.ts'
import { type ChildRun, runChild } from '../support/child.ts'
import { ROOT, limiter } from '../support/run-conformance.ts'

const CLI = join(ROOT, 'scripts/cli.ts')
const oneAtATime = limiter(2)
/** A test's time includes its wait for a free slot behind the others, on a machine other runs may share. */
const TEST_MS = 240_000

function cli(args: string[]): Promise<ChildRun> {
  return oneAtATime(() =>
    runChild(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_'))),
    }),
  )
}

describe('help', () => {
  test.concurrent.each(COMMANDS.flatMap((command) => [[command, '-h'] as const, [command, '--help'] as const]))(
    'gateway-conformance %s %s prints its usage, exit 0',
    async (command, flag) => {
      const run = await cli([command, flag])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Usage: /)
      expect(run.stdout).toMatch(/-h, --help/)
    },
    TEST_MS,
  )

  test.concurrent.each([['-h'], ['--help']])(
    'gateway-conformance %s names every command',
    async (flag) => {
      const run = await cli([flag])
      expect(run.code).toBe(0)
      for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
    },
    TEST_MS,
  )
})

describe('mistakes: one line, exit 2', () => {
  test.concurrent.each([
    [['faults', '--bogus'], /^faults: Unknown option '--bogus'.*--help\)$/],
    [['faults', '--workers', 'many'], /^faults: --workers is a whole number/],
    [['gateway', '--bogus'], /^gateway: /],
    [['deploy'], /^gateway-conformance: unknown command "deploy": choose from conformance, load, /],
  ])(
    '%j',
    async (args, line) => {
      const run = await cli(args)
      expect(run.code).toBe(2)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stderr.trim()).toMatch(line)
    },
    TEST_MS,
  )

  test.concurrent(
    'no command prints the usage and exits 2',
    async () => {
      const run = await cli([])
      expect(run.code).toBe(2)
      expect(run.stdout).toMatch(/^Usage: gateway-conformance <command>/)
    },
    TEST_MS,
  )
})
