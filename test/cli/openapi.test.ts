/**
 * The OpenAPI document as a user meets it: `gateway-conformance openapi` prints it (JSON or YAML, to a file), an
 * OpenAPI 3.1 validator from npm finds it valid, and Prism (Stoplight's mock server, which no one here wrote) serves
 * it: its answers match our response schemas, and it refuses what our request schemas say is invalid.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { parse } from 'yaml'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { schemas } from '../../harness/schema-registry.ts'
import { type ChildRun, runChild } from '../support/child.ts'
import { ROOT } from '../support/run-conformance.ts'

const CLI = join(ROOT, 'scripts/cli.ts')
const require = createRequire(import.meta.url)
const PRISM = require.resolve('@stoplight/prism-cli/dist/index.js')
const PRISM_VERSION = (require('@stoplight/prism-cli/package.json') as { version: string }).version
const STARTUP_MS = 60_000

const scratch = mkdtempSync(join(tmpdir(), 'gc-openapi-'))
const documentFile = join(scratch, 'openapi.json')

function cli(args: string[]): Promise<ChildRun> {
  return runChild(process.execPath, [CLI, ...args], {
    cwd: scratch,
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_'))),
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('gateway-conformance openapi', () => {
  test('prints the document as JSON, the same as YAML and into a file; a bad option is one line and exit 2', async () => {
    const [json, yaml, file, bad] = await Promise.all([
      cli(['openapi']),
      cli(['openapi', '--format', 'yaml', '--server', 'http://127.0.0.1:8080']),
      cli(['openapi', '--output', documentFile]),
      cli(['openapi', '--format', 'xml']),
    ])
    expect(json.code, json.stderr).toBe(0)
    const document = JSON.parse(json.stdout) as { openapi: string; servers: Array<{ url: string }> }
    expect(document.openapi).toBe('3.1.0')
    expect(yaml.code, yaml.stderr).toBe(0)
    expect(parse(yaml.stdout)).toEqual({
      ...document,
      servers: [{ ...document.servers[0], url: 'http://127.0.0.1:8080' }],
    })
    expect(file.code, file.stderr).toBe(0)
    expect(JSON.parse(readFileSync(documentFile, 'utf8'))).toEqual(document)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('openapi: --format must be json or yaml (got "xml")\n')
  }, 60_000)

  test('an OpenAPI 3.1 validator (@seriousme/openapi-schema-validator) finds it valid, every $ref resolved', async () => {
    const run = await cli(['openapi'])
    const validator = new Validator()
    const result = await validator.validate(JSON.parse(run.stdout) as Parameters<Validator['validate']>[0])
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  }, 60_000)
})

describe(`Prism ${PRISM_VERSION} mocking the document`, () => {
  let prism: ChildProcess | undefined
  let url = ''
  let log = ''

  beforeAll(async () => {
    const run = await cli(['openapi', '--output', documentFile])
    expect(run.code, run.stderr).toBe(0)
    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    prism = spawn(process.execPath, [PRISM, 'mock', '--host', '127.0.0.1', '--port', String(port), documentFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    const output = (chunk: Buffer): void => {
      log += chunk.toString()
    }
    prism.stdout?.on('data', output)
    prism.stderr?.on('data', output)
    const deadline = Date.now() + STARTUP_MS
    while (!/Prism is listening/.test(log)) {
      if (Date.now() > deadline || prism.exitCode !== null) throw new Error(`Prism did not start:\n${log.slice(-2000)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, STARTUP_MS + 30_000)

  afterAll(() => {
    if (prism?.pid !== undefined && prism.exitCode === null) process.kill(-prism.pid, 'SIGKILL')
  })

  const call = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(url + path, {
      method,
      headers: {
        authorization: 'Bearer sk-any',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    })

  test('serves every shown answer in the shape our response schemas judge', async () => {
    const models = await call('GET', '/v1/models')
    expect(models.status).toBe(200)
    const list = (await models.json()) as { data: unknown[] }
    for (const item of list.data) expect(schemas().validate('models/list-item.json', item).errors).toEqual([])

    const response = await call('POST', '/v1/responses', { model: 'm', input: 'Say hi.', temperature: 2 })
    expect(response.status).toBe(200)
    expect(schemas().validate('responses/response.json', await response.json()).errors).toEqual([])

    const search = await call(
      'POST',
      '/v1/search',
      (
        JSON.parse(readFileSync(join(ROOT, 'schemas/search/requests/body-form.json'), 'utf8')) as {
          'x-seed': { body: unknown }
        }
      )['x-seed'].body,
    )
    expect(search.status).toBe(200)
    expect(schemas().validate('search/result.json', await search.json()).errors).toEqual([])
  }, 60_000)

  test('refuses what the request schemas say breaks a stated constraint, naming it', async () => {
    const missing = await call('POST', '/v1/responses', { input: 'Say hi.' })
    expect(missing.status).toBe(400)
    expect(missing.headers.get('sl-violations')).toMatch(/required property 'model'/)

    const hot = await call('POST', '/v1/responses', { model: 'm', input: 'Say hi.', temperature: 2.5 })
    expect(hot.status).toBe(400)
    expect(hot.headers.get('sl-violations')).toMatch(/temperature must be <= 2/)

    const page = await call('GET', '/user/v1/transactions?page=10001')
    expect(page.status).toBe(400)
    expect(page.headers.get('sl-violations')).toMatch(/page/)
  }, 60_000)
})
