/**
 * npm run bench: speed goals measured side by side in one run and printed as ratios, never as timed tests (these
 * machines are shared and noisy: a ratio of two things measured together survives that, an absolute figure not).
 *
 * Today: the reference gateway's cost. GET /v1/models through the whole gateway (auth, rate limiter, shared
 * headers, transaction recording) against a bare Fastify route that returns the same body. Rounds alternate between
 * the two so that drift in the machine's load hits both alike. Loopback only, bounded in requests.
 */
import Fastify from 'fastify'
import { Agent, request } from 'undici'
import { startEmbeddedGateway } from '../gateway/embedded.ts'

const BENCH = {
  rounds: 5, // alternating rounds per target
  requestsPerRound: 2000,
  concurrency: 16,
  warmupRequests: 500,
  goal: 0.5, // the gateway should keep at least half the throughput of a bare route (issue 6)
}

async function throughput(url: string, headers: Record<string, string>, requests: number, dispatcher: Agent): Promise<number> {
  let next = 0
  const started = performance.now()
  const worker = async (): Promise<void> => {
    while (next < requests) {
      next += 1
      const response = await request(url, { headers, dispatcher })
      if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`)
      await response.body.dump()
    }
  }
  await Promise.all(Array.from({ length: BENCH.concurrency }, worker))
  return requests / ((performance.now() - started) / 1000)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

// The tier-5 key has the most request room, so the benchmark measures the gateway, not its rate limiter refusing.
const gateway = await startEmbeddedGateway()
const headers = { authorization: `Bearer ${gateway.keys.tier5}` }
const body = await (await request(`${gateway.url}/v1/models`, { headers })).body.text()
const bare = Fastify()
bare.get('/v1/models', async (_req, reply) => reply.type('application/json').send(body))
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
const dispatcher = new Agent({ connections: BENCH.concurrency })
try {
  await throughput(`${gateway.url}/v1/models`, headers, BENCH.warmupRequests, dispatcher)
  await throughput(`${bareUrl}/v1/models`, {}, BENCH.warmupRequests, dispatcher)
  const gw: number[] = []
  const base: number[] = []
  for (let round = 0; round < BENCH.rounds; round += 1) {
    gw.push(await throughput(`${gateway.url}/v1/models`, headers, BENCH.requestsPerRound, dispatcher))
    base.push(await throughput(`${bareUrl}/v1/models`, {}, BENCH.requestsPerRound, dispatcher))
  }
  const ratio = median(gw.map((g, i) => g / (base[i] as number)))
  const rows = [
    ['benchmark', 'measured', 'baseline', 'ratio', 'goal'],
    ['gateway GET /v1/models vs bare Fastify, req/s (median of rounds)', median(gw).toFixed(0), median(base).toFixed(0), ratio.toFixed(2), `>= ${BENCH.goal}`],
  ]
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  for (const row of rows) process.stdout.write(`${row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}\n`)
  process.stdout.write(`\n${ratio >= BENCH.goal ? 'goal met' : 'goal NOT met'} (${BENCH.rounds} alternating rounds of ${BENCH.requestsPerRound} requests, ${BENCH.concurrency} in flight, ${body.length}-byte body)\n`)
} finally {
  await dispatcher.close()
  await bare.close()
  await gateway.close()
}
