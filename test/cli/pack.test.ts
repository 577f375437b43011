/**
 * The package as a user installs it: packed with npm pack (which compiles the command to JavaScript), installed
 * into an empty folder with no network (the lockfile's dependency tree from the npm cache, by the same script the
 * container image uses), then run with npx: help, a partial conformance run against the embedded gateway, and a
 * load profile. No TypeScript loader is involved: an installed package has none.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Summary } from '../../harness/report/summary.ts'
import { ROOT } from '../support/run-conformance.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-pack-'))
const folder = join(scratch, 'empty-project')
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string }

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  // No GATEWAY_* of the developer's; no network for npm.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('VITEST')),
  )
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...base, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

let tarball = ''
let files: string[] = []

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], ROOT)
  expect(packed.code, packed.stderr).toBe(0)
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  tarball = join(scratch, info?.filename as string)
  files = info?.files.map((f) => f.path) ?? []
  const installed = await run(
    process.execPath,
    [join(ROOT, 'scripts/install-packed.mjs'), tarball, folder, '--offline', '--loglevel=error'],
    ROOT,
  )
  expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0)
}, 300_000)

// An installed node_modules of some three hundred packages takes a while to remove on a busy machine.
afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000)

describe('the tarball', () => {
  test('holds the command compiled to JavaScript, the suites, schemas, LICENSE and CHANGELOG; no tests, no CI', () => {
    expect(files).toContain('bin/gateway-conformance.js')
    expect(files).toContain('scripts/cli.js')
    expect(files).toContain('harness/config.js')
    expect(files).toContain('suites/setup.ts')
    expect(files).toContain('schemas/requirements.json')
    expect(files).toContain('schemas/config/config.schema.json')
    for (const name of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json']) expect(files).toContain(name)
    expect(files.filter((f) => f.startsWith('test/'))).toEqual(['test/support/long-poles-first.ts'])
    expect(files.filter((f) => /\.test\.ts$/.test(f) && !f.startsWith('suites/'))).toEqual([])
    expect(files.filter((f) => f.startsWith('.github/') || f.startsWith('.ci/') || f === '.env')).toEqual([])
    // The entry points ship compiled only: the installed command never needs the TypeScript loader.
    expect(files.filter((f) => f.startsWith('scripts/') && f.endsWith('.ts'))).toEqual([])
  })

  test('packing left the working tree as it was: no compiled file beside the sources', () => {
    expect(existsSync(join(ROOT, 'scripts', 'cli.js'))).toBe(false)
    expect(readdirSync(join(ROOT, 'harness')).filter((f) => f.endsWith('.js'))).toEqual([])
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
