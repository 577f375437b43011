/**
 * The suite against OpenAI-compatible servers from npm that no one here wrote (test/third-party/servers.ts),
 * with their models named (GATEWAY_MODELS), as a vendor whose gateway is not conformant yet would meet it: the run
 * ends by itself in bounded time with exit 1, never 2; no harness error; every failure follows the failure-message
 * contract (requirement, rule, what was seen, the exchange, a curl line); no key is printed or written; and the
 * requirements each server really meets pass (read from its exchanges), so that a slide into a skip or a false
 * failure shows. The families are those a chat server's answers can be judged in, to keep npm test short.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { requirements } from '../../harness/requirements.ts'
import type { Summary } from '../../harness/report/summary.ts'
import { runConformance, type ConformanceRun } from '../support/run-conformance.ts'
import { SERVERS, type ThirdPartyServer } from './servers.ts'

const FAMILIES = ['auth', 'chat', 'compatible', 'models', 'generated']
/** Far above what a run takes (seconds alone, a minute beside the fault proof); past it the child is killed. */
const BOUND_MS = 240_000

/**
 * What each server meets, verified by reading its exchanges: mock-llm streams a chat answer as SSE that ends cleanly
 * (its chunks and data: [DONE] are recorded, §6.4 not showing them), and its JSON parser refuses a broken body with 400,
 * on every route, before routing; openai-mock-api answers a chat completion of §2.6 (with and without tools), refuses a
 * body without model or messages with 400, a call without its key or with another with 401, and a broken body with 400,
 * on every route too.
 */
const BROKEN_BODY_400 = ['P1-7-compatible-malformed-json', 'P1-7-malformed-json', 'P2-7-malformed-json']
const MEETS: Record<string, string[]> = {
  '@dwmkerr/mock-llm': ['P1-6.4-chat-stream', ...BROKEN_BODY_400],
  'openai-mock-api': [
    'P1-2.6-chat-completion',
    'P1-4.7-chat-tools',
    'P1-7-chat-invalid-request',
    'P1-5.1-key-required',
    ...BROKEN_BODY_400,
  ],
}

const FAILURE =
  /^(?<id>P[12]-\S+) · (MUST|SHOULD) · Part [12] §\S+.*\nRule: .+\n(Reference: ".+"\n)?(Expected: .+\n)?Seen:[\s\S]+\nExchange: [A-Z]+ \/\S* -> [\s\S]+\nReproduce: curl /

function contractBreaches(summary: Summary): string[] {
  const known = requirements()
  const out: string[] = []
  for (const r of summary.requirements.filter((req) => req.status === 'fail')) {
    if (r.evidence.length === 0) out.push(`${r.id}: no evidence`)
    for (const e of r.evidence) {
      const match = FAILURE.exec(e.message)
      if (match === null || !known.has(match.groups?.id ?? '')) out.push(`${r.id}: ${e.message.slice(0, 200)}`)
    }
  }
  return out
}

describe.each(SERVERS)('$name $version', (server: ThirdPartyServer) => {
  let target: { url: string; close(): Promise<void> }
  let run: ConformanceRun
  let elapsedMs = 0

  beforeAll(async () => {
    // mock-llm logs every request it serves, and every body it cannot parse, to the console.
    vi.spyOn(console, 'log').mockImplementation(() => {})
    vi.spyOn(console, 'error').mockImplementation(() => {})
    target = await server.start()
    const started = Date.now()
    run = await runConformance(
      ['--family', FAMILIES.join(',')],
      { GATEWAY_BASE_URL: target.url, GATEWAY_API_KEY: server.key, GATEWAY_MODELS: server.models },
      BOUND_MS,
    )
    elapsedMs = Date.now() - started
  }, BOUND_MS + 10_000)
  afterAll(async () => {
    run?.cleanup()
    await target?.close()
    vi.restoreAllMocks()
  })

  test('the run ends by itself, not conformant (exit 1), with no harness error', () => {
    expect(elapsedMs).toBeLessThan(BOUND_MS)
    expect(run.exitCode, run.stderr).toBe(1)
    expect(run.summary?.harnessErrors).toEqual([])
    expect(run.summary?.requirements.filter((r) => r.status === 'error').map((r) => r.id)).toEqual([])
  })

  test('every failure names its requirement, the rule, what was seen, the exchange and a curl line', () => {
    expect(run.summary?.requirements.some((r) => r.status === 'fail')).toBe(true)
    expect(contractBreaches(run.summary as Summary)).toEqual([])
  })

  test('no key is printed or written', () => {
    expect(run.stdout + run.stderr).not.toContain(server.key)
    expect(readFileSync(join(run.reportRoot, 'latest', 'summary.json'), 'utf8')).not.toContain(server.key)
    expect(readFileSync(join(run.reportRoot, 'latest', 'exchanges.har'), 'utf8')).not.toContain(server.key)
  })

  test('the requirements it meets pass', () => {
    const status = new Map(run.summary?.requirements.map((r) => [r.id, r.status]))
    expect(MEETS[server.name]?.filter((id) => status.get(id) !== 'pass')).toEqual([])
  })
})
