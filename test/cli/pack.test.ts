/**
 * The package as a user installs it: packed with npm pack (which compiles the command to JavaScript), installed
 * into an empty folder with no network (the lockfile's dependency tree from the npm cache) by the Action's own
 * install step, which the container image repeats, then run with npx: help, a partial conformance run against the
 * embedded gateway, and a load profile. Only JavaScript runs: node strips no types under node_modules. Then the
 * Action's other steps, against the embedded gateway and against a gateway with a fault.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Summary } from '../../harness/report/summary.ts'
import { type ChildRun, runChild } from '../support/child.ts'
import { ROOT } from '../support/run-conformance.ts'
import { runAction, type StepRun } from '../support/action-runner.ts'
import { SEEDED_KEYS } from '../../gateway/account/accounts.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-pack-'))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

/** The environment without the developer's GATEWAY_* and vitest's own variables. */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !entry[0].startsWith('GATEWAY_') && !entry[0].startsWith('VITEST'),
    ),
  )
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<ChildRun> {
  const base = cleanEnv()
  return runChild(command, args, {
    cwd,
    env: { ...base, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', ...env },
  })
}

let files: string[] = []
let folder = ''
let bin = ''

beforeAll(async () => {
  // The Action's own install step, offline: npm pack, then scripts/install-packed.mjs from the npm cache.
  const install = await runAction({
    root: ROOT,
    scratch,
    inputs: {},
    env: { ...cleanEnv(), npm_config_offline: 'true', npm_config_loglevel: 'error' },
    only: ['install'],
  })
  const step = install.steps.find((s) => s.name === 'Install the packed command') as StepRun
  expect(step.code, `${step.stdout}\n${step.stderr}`).toBe(0)
  bin = step.outputs.bin as string
  folder = join(scratch, 'gateway-conformance')
  expect(bin).toBe(join(folder, 'node_modules', '.bin', 'gateway-conformance'))
  const packDir = `${folder}.pack`
  const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz')) as string
  const listed = await run('tar', ['-tzf', join(packDir, tarball)], scratch)
  files = listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
}, 300_000)

// An installed node_modules of some three hundred packages takes a while to remove on a busy machine.
afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

describe('the tarball', () => {
  test('holds the command compiled to JavaScript, the suites, schemas, docs, LICENSE and CHANGELOG; no tests, no bench, no CI', () => {
    expect(files).toContain('bin/gateway-conformance.js')
    expect(files).toContain('scripts/cli.js')
    expect(files).toContain('harness/setup/config.js')
    expect(files).toContain('suites/setup.ts')
    expect(files).toContain('schemas/requirements.json')
    expect(files).toContain('schemas/config/config.schema.json')
    for (const name of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json']) expect(files).toContain(name)
    // The pages the README and .env.example link to; the bench measures this repository, not a user's target.
    expect(files).toContain('docs/configuration.md')
    expect(files.filter((f) => f.startsWith('bench/') || f.startsWith('scripts/bench'))).toEqual([])
    expect(files.filter((f) => f.startsWith('test/'))).toEqual(['test/support/long-poles-first.ts'])
    expect(files.filter((f) => /\.test\.ts$/.test(f) && !f.startsWith('suites/'))).toEqual([])
    expect(files.filter((f) => f.startsWith('.github/') || f.startsWith('.ci/') || f === '.env')).toEqual([])
    // The entry points ship compiled only: node refuses to strip the types of a .ts file under node_modules.
    expect(files.filter((f) => f.startsWith('scripts/') && f.endsWith('.ts'))).toEqual([])
  })

  test('packing left the working tree as it was: no compiled file beside the sources', () => {
    expect(existsSync(join(ROOT, 'scripts', 'cli.js'))).toBe(false)
    expect(readdirSync(join(ROOT, 'harness'), { recursive: true }).filter((f) => String(f).endsWith('.js'))).toEqual([])
  })
})

describe('installed into an empty folder, run with npx', () => {
  test('npx gateway-conformance --help names every command; --version is the package version', async () => {
    const help = await run('npx', ['--offline', 'gateway-conformance', '--help'], folder)
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/^Usage: gateway-conformance <command>/)
    const version = await run('npx', ['--offline', 'gateway-conformance', '--version'], folder)
    expect(version.stdout.trim()).toBe(PACKAGE.version)
  }, 60_000)

  test('openapi prints the document from the schemas the package ships', async () => {
    const printed = await run('npx', ['--offline', 'gateway-conformance', 'openapi'], folder)
    expect(printed.code, printed.stderr).toBe(0)
    const document = JSON.parse(printed.stdout) as { openapi: string; paths: Record<string, unknown> }
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths)).toContain('/v1/responses')
  }, 60_000)

  test('conformance --family auth: a partial run, exit 0, attributed to the package with no commit', async () => {
    const conformance = await run(
      'npx',
      ['--offline', 'gateway-conformance', 'conformance', '--family', 'auth'],
      folder,
    )
    expect(conformance.code, `${conformance.stdout}\n${conformance.stderr}`).toBe(0)
    expect(conformance.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|ERR_UNSUPPORTED/)
    const lines = conformance.stdout.trim().split('\n')
    expect(lines.at(-2)).toMatch(
      /^PASSED \(partial: \d+ of \d+ requirements selected\): not a conformance verdict \(exit 0\)$/,
    )
    expect(lines.at(-1)).toMatch(/^Reports: reports\/\d{8}-\d{6}-[0-9a-f]{4}\/ /)
    const summary = JSON.parse(readFileSync(join(folder, 'reports', 'latest', 'summary.json'), 'utf8')) as Summary
    expect(summary.tool).toMatchObject({ name: PACKAGE.name, version: PACKAGE.version, commit: null })
    expect(summary.tool.catalogueSha256).toMatch(/^[0-9a-f]{64}$/)
  }, 180_000)

  test('load --profile tier-0-usage with a short minute: its verdicts pass, exit 0', async () => {
    const load = await run(
      'npx',
      ['--offline', 'gateway-conformance', 'load', '--profile', 'tier-0-usage', '--minute-ms', '1000'],
      folder,
    )
    expect(load.code, `${load.stdout}\n${load.stderr}`).toBe(0)
    expect(load.stdout).toMatch(/^PASS \(exit 0\)\. Report: /m)
  }, 180_000)
})

/** The installed command's reference gateway with a fault, on a free port; resolves its base URL. */
async function faultyGateway(fault: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(bin, ['gateway', '--port', '0', '--fault', fault], {
    cwd: folder,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const found = /listening on (http:\/\/\S+)/.exec(text)
      if (found) resolve(found[1] as string)
    })
    child.on('close', (code) => reject(new Error(`the gateway ended (${code}) before it listened: ${text}`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}

describe("the Action's steps (action.yml), with the packed command", () => {
  test('against the embedded gateway, one family: a partial pass, summary on the job page, verdict step exit 0', async () => {
    const action = await runAction({
      root: ROOT,
      scratch: mkdtempSync(join(scratch, 'action-')),
      inputs: { families: 'auth' },
      env: cleanEnv(),
      skip: ['install'],
      given: { install: { bin } },
    })
    expect(action.outputs['exit-code']).toBe('0')
    expect(action.outputs.verdict).toBe('partial-conformant')
    expect(existsSync(join(action.outputs['report-dir'] as string, 'summary.json'))).toBe(true)
    expect(action.summary).toMatch(/^# Gateway conformance: PASSED \(partial: \d+ of \d+ requirements selected\)/)
    const byName = Object.fromEntries(action.steps.map((s) => [s.name, s]))
    expect(byName['Load profile']?.skipped).toBe(true)
    expect(byName['Upload the reports']).toMatchObject({ skipped: true, uses: 'actions/upload-artifact@v4' }) // GitHub's; listed, not run here
    expect(byName.Verdict?.code).toBe(0)
  }, 180_000)

  test('against a gateway that breaks a rule: the failure annotated, outputs say so, verdict step exit 1, no key shown', async () => {
    const gateway = await faultyGateway('public-models-needs-auth')
    try {
      const action = await runAction({
        root: ROOT,
        scratch: mkdtempSync(join(scratch, 'action-')),
        inputs: { 'base-url': gateway.url, 'api-key': SEEDED_KEYS.main, families: 'auth' },
        env: cleanEnv(),
        skip: ['install'],
        given: { install: { bin } },
      })
      const conformance = action.steps.find((s) => s.name === 'Conformance') as StepRun
      expect(conformance.code, conformance.stderr).toBe(0) // the step keeps the code for the Verdict step
      expect(action.outputs['exit-code']).toBe('1')
      expect(action.outputs.verdict).toBe('partial-non-conformant')
      expect(conformance.stdout).toMatch(/^::error title=P1-5\.1-public-models \(MUST%2C Part 1 §5\.1\)::/m)
      expect(action.summary).toMatch(/^# Gateway conformance: FAILED \(partial: /)
      expect(action.steps.find((s) => s.name === 'Verdict')?.code).toBe(1)
      const everything = JSON.stringify(action)
      expect(everything.includes(SEEDED_KEYS.main)).toBe(false)
    } finally {
      gateway.stop()
    }
  }, 180_000)
})
