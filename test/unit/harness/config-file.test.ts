/**
 * The config file: checked against its published schema, mistakes as one line with the file and the JSON pointer,
 * keys only as ${ENV} references (a literal key refused without being echoed), and flags over the environment over
 * the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { applyConfigFile, readConfigFile } from '../../../harness/setup/config-file.ts'
import { loadEnv, resolveOptions } from '../../../harness/setup/config.ts'
import { ConfigError } from '../../../harness/errors.ts'
import { families } from '../../../harness/requirements.ts'

const dir = mkdtempSync(join(tmpdir(), 'gc-config-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function write(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('no error')
}

const FULL = `# reviewed in a pull request
target: https://gateway.example.com
keys:
  main: \${STAGING_KEY}
  tier3: \${STAGING_TIER3}
  tier4: \${UNSET_TIER4}
models:
  chat: acme-chat-1
  responses: acme-chat-1
names:
  video-model: acme-video
nativeKeyHeader: x-acme-key
families: [auth, headers]
level: must
asOf: 2026-09-01
budgetUsd: 2.5
deadline: 45m
baseline: known.json
reportDir: out
load:
  profile: tier-2-usage
  objectives:
    ttft_p99: 2s
    errors: 1%
`

describe('reading and checking the file', () => {
  test('the example file passes its schema', () => {
    expect(readConfigFile(write('full.yaml', FULL)).models).toEqual({ chat: 'acme-chat-1', responses: 'acme-chat-1' })
  })

  test('the file docs/configuration.md shows is valid', () => {
    const page = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')
    const block = /```yaml\n# gateway-conformance\.yaml\n([\s\S]*?)```/.exec(page)?.[1]
    expect(block, 'docs/configuration.md shows a gateway-conformance.yaml').toBeDefined()
    expect(() => readConfigFile(write('readme.yaml', block as string))).not.toThrow()
  })

  test('an empty file is no settings', () => {
    expect(readConfigFile(write('empty.yaml', '# nothing yet\n'))).toEqual({})
  })

  test('a literal key is refused, and the refusal does not echo it', () => {
    const message = errorOf(() =>
      readConfigFile(write('literal.yaml', 'keys:\n  main: sk-live-0123456789abcdef\n'), 'literal.yaml'),
    )
    expect(message).toMatch(/^literal\.yaml \/keys\/main: a key is given as a reference .*\$\{GATEWAY_API_KEY\}/)
    expect(message).not.toContain('sk-live')
    expect(message).not.toContain('0123456789abcdef')
  })

  test.each([
    ['famlies: [auth]\n', /^c\.yaml \/: "famlies" is not a setting here/],
    ['models:\n  chatt: x\n', /^c\.yaml \/models\/chatt: not a name this setting takes; choose from chat, /],
    ['level: some\n', /^c\.yaml \/level: not allowed; choose from must, all$/],
    ['budgetUsd: -1\n', /^c\.yaml \/budgetUsd: must be >= 0$/],
    ['target: https://gw.example.com/v1\n', /^c\.yaml \/target: must match pattern/],
    ['deadline: soon\n', /^c\.yaml \/deadline: "soon" is not a duration; write e\.g\. 30m/],
    ['families: [auth\n', /^c\.yaml: not YAML: .* at line 2, column 1$/],
    ['load:\n  tier: 9\n', /^c\.yaml \/load\/tier: must be <= 5$/],
  ])('%j: one line with the file and the pointer', (text, line) => {
    const message = errorOf(() => readConfigFile(write('c.yaml', text), 'c.yaml'))
    expect(message.split('\n')).toHaveLength(1)
    expect(message).toMatch(line)
  })

  test('an unknown family names the file and the pointer', () => {
    const config = readConfigFile(write('f.yaml', 'families: [auth, nope]\n'))
    expect(errorOf(() => applyConfigFile(config, 'f.yaml', 'conformance', {}, [], families()))).toMatch(
      /^f\.yaml \/families\/1: no family "nope"; choose from /,
    )
  })

  test('a remote target whose main key reference is unset says which variable to set', () => {
    const config = readConfigFile(write('k.yaml', 'target: https://gw.example.com\nkeys:\n  main: ${NOT_SET_HERE}\n'))
    expect(errorOf(() => applyConfigFile(config, 'k.yaml', 'conformance', {}, []))).toBe(
      'k.yaml /keys/main: ${NOT_SET_HERE} is not set; set NOT_SET_HERE in the environment or in .env',
    )
  })
})

describe('what the file becomes: environment variables and flags, under what is already set', () => {
  const path = write('full.yaml', FULL)
  const config = readConfigFile(path)
  const env = { STAGING_KEY: 'key-main', STAGING_TIER3: 'key-t3' }

  test('conformance: every setting on its route; keys through their references; paths relative to the file', () => {
    const applied = applyConfigFile(config, path, 'conformance', env, [])
    expect(applied.env).toEqual({
      GATEWAY_BASE_URL: 'https://gateway.example.com',
      GATEWAY_API_KEY: 'key-main',
      GATEWAY_API_KEY_TIER3: 'key-t3',
      GATEWAY_MODELS: 'chat=acme-chat-1,responses=acme-chat-1',
      GATEWAY_NAMES: 'video-model=acme-video',
      GATEWAY_NATIVE_KEY_HEADER: 'x-acme-key',
      GATEWAY_AS_OF: '2026-09-01',
      GATEWAY_BUDGET_USD: '2.5',
      GATEWAY_MAX_DURATION: '45m',
    })
    expect(applied.argv).toEqual([
      '--family',
      'auth,headers',
      '--level',
      'must',
      '--baseline',
      join(dir, 'known.json'),
      '--report-dir',
      join(dir, 'out'),
    ])
  })

  test('load: the profile, the objectives and the report folder', () => {
    const applied = applyConfigFile(config, path, 'load', env, [])
    expect(applied.argv).toEqual([
      '--report-dir',
      join(dir, 'out'),
      '--profile',
      'tier-2-usage',
      '--slo',
      'ttft_p99=2s,errors=1%',
    ])
  })

  test('load compare gets none of the load run settings', () => {
    expect(applyConfigFile(config, path, 'load', env, ['compare', 'a', 'b']).argv).toEqual(['compare', 'a', 'b'])
  })

  test('flags beat the environment, which beats the file', () => {
    const environment = { ...env, GATEWAY_BUDGET_USD: '9', GATEWAY_AS_OF: '2026-10-01' }
    const applied = applyConfigFile(config, path, 'conformance', environment, [
      '--as-of',
      '2026-11-01',
      '--family',
      'models',
    ])
    // The environment kept its own; the file filled the rest.
    expect(applied.env.GATEWAY_BUDGET_USD).toBeUndefined()
    expect(applied.env.GATEWAY_AS_OF).toBeUndefined()
    expect(applied.argv.filter((a) => a === '--family')).toHaveLength(1)
    const options = resolveOptions(
      { ...environment, ...applied.env },
      { 'as-of': '2026-11-01', family: 'models' },
      [],
      families(),
    )
    expect(options.asOf).toBe('2026-11-01') // flag over environment and file
    expect(options.budgetUsd).toBe(9) // environment over file
    expect(options.families).toEqual(['models']) // flag over file
    expect(options.baseUrl).toBe('https://gateway.example.com') // file, where nothing else said
    expect(options.keys.main).toBe('key-main')
    expect(options.keys.tier4).toBeUndefined() // an unset secret leaves its tier unset
  })

  test("--rerun-failed chooses the families itself: the file's are not added to it", () => {
    const applied = applyConfigFile(config, path, 'conformance', env, ['--rerun-failed', 'reports/latest'])
    expect(applied.argv).not.toContain('--family')
    expect(applyConfigFile(config, path, 'conformance', env, []).argv).toContain('--family')
  })

  test('.env counts as the environment', () => {
    const withDotenv = mkdtempSync(join(dir, 'dotenv-'))
    writeFileSync(join(withDotenv, '.env'), 'GATEWAY_BASE_URL=http://127.0.0.1:9\nSTAGING_KEY=k\n')
    const applied = applyConfigFile(config, path, 'conformance', loadEnv({}, withDotenv), [])
    expect(applied.env.GATEWAY_BASE_URL).toBeUndefined()
    expect(applied.env.GATEWAY_API_KEY).toBe('k')
  })
})
