/**
 * The embedded entry point over real HTTP, and the command line (ARCHITECTURE.md: startEmbeddedGateway() is
 * the one entry point other code imports; `npm run gateway` prints the URL and keys).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEEDED_KEY_ENV } from '../../../gateway/account/accounts.ts'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../../gateway/embedded.ts'
import { usageRequestsPerMinute } from '../../../gateway/limit-tables.ts'
import { UUID_V7 } from './helpers.ts'

describe('startEmbeddedGateway (over HTTP)', () => {
  let gateway: EmbeddedGateway

  beforeAll(async () => {
    gateway = await startEmbeddedGateway({ now: '2026-09-01' })
  })
  afterAll(async () => {
    await gateway.close()
  })

  it('listens on a loopback port and gives a URL without a trailing slash', () => {
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('returns the seeded keys, main being the tier-2 key', async () => {
    expect(Object.keys(gateway.keys).sort()).toEqual(Object.keys(SEEDED_KEY_ENV).sort())
    expect(gateway.keys.main).toBe(gateway.keys.tier2)
    const credit = await fetch(`${gateway.url}/user/v1/credit`, {
      headers: { authorization: `Bearer ${gateway.keys.main}` },
    })
    expect(((await credit.json()) as { account_tier: number }).account_tier).toBe(2)
  })

  it('answers with svc-request-id and x-request-id (the clock is at 2026-09-01)', async () => {
    const response = await fetch(`${gateway.url}/public/models`)
    expect(response.status).toBe(200)
    expect(response.headers.get('svc-request-id')).toMatch(UUID_V7)
    expect(response.headers.get('x-request-id')).toBe(response.headers.get('svc-request-id'))
  })

  it('admits exactly the usage limit out of concurrent HTTP calls (section 8.1)', async () => {
    const limit = usageRequestsPerMinute(0)
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const response = await fetch(`${gateway.url}/user/v1/credit`, {
          headers: { authorization: `Bearer ${gateway.keys.tier0}` },
        })
        await response.arrayBuffer()
        return response.status
      }),
    )
    expect(statuses.filter((status) => status === 200).length).toBe(limit)
    expect(statuses.filter((status) => status === 429).length).toBe(12 - limit)
  })

  it('refuses bad options with a message naming the valid faults', async () => {
    await expect(startEmbeddedGateway({ faults: ['nope'] })).rejects.toThrow(/valid faults:/)
  })
})

describe('npm run gateway (scripts/gateway.ts)', () => {
  const script = fileURLToPath(new URL('../../../scripts/gateway.ts', import.meta.url))
  const run = (args: string[]) => spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })

  it('prints the URL and every key, serves, and exits 0 on SIGTERM', async () => {
    const child = run(['--port', '0'])
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    try {
      while (!out.includes('Stop with Ctrl-C')) {
        if (child.exitCode !== null) throw new Error(`the gateway exited early: ${out}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      for (const name of Object.values(SEEDED_KEY_ENV)) expect(out).toContain(name)
      expect((await fetch(`${url}/public/models`)).status).toBe(200)
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })

  it('exits 2 with one line on stderr for a bad option', async () => {
    const child = run(['--fault', 'nope'])
    let err = ''
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(err.trim().split('\n')).toHaveLength(1)
    expect(err).toMatch(/unknown fault 'nope'/)
  })
})
