/**
 * The reference gateway's cost: GET /v1/models through the whole gateway (auth, rate limiter, shared headers,
 * transaction recording) against a bare Fastify route that returns the same body. Rounds alternate between the
 * two so that drift in the machine's load hits both alike. Loopback only, bounded in requests. Both servers
 * run in this process, as does the client: the client's cost is the same on both sides.
 */
import Fastify from 'fastify'
import { Agent, request } from 'undici'
import { startEmbeddedGateway } from '../gateway/embedded.ts'
import { median, type Row } from './table.ts'

interface GatewayCostOptions {
  rounds: number // alternating rounds per target
  requestsPerRound: number
  warmupRequests: number
}

export const GATEWAY_COST = {
  concurrency: 16,
  goal: 0.8, // the gateway keeps at least 80 % of the throughput of a bare route: a real gateway's own cost is small
  requestTimeoutMs: 10_000, // a loopback answer takes milliseconds; a hang must not hang the bench
}

async function throughput(
  url: string,
  headers: Record<string, string>,
  requests: number,
  dispatcher: Agent,
): Promise<number> {
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
  await Promise.all(Array.from({ length: GATEWAY_COST.concurrency }, worker))
  return requests / ((performance.now() - started) / 1000)
}

export async function gatewayCost(o: GatewayCostOptions): Promise<Row> {
  // The tier-5 key has the most request room, so the benchmark measures the gateway, not its rate limiter refusing.
  const gateway = await startEmbeddedGateway()
  const bare = Fastify()
  // undici's own timeouts rather than a signal per request: a timer per call would add to the cost measured.
  const dispatcher = new Agent({
    connections: GATEWAY_COST.concurrency,
    headersTimeout: GATEWAY_COST.requestTimeoutMs,
    bodyTimeout: GATEWAY_COST.requestTimeoutMs,
  })
  try {
    const headers = { authorization: `Bearer ${gateway.keys.tier5}` }
    const body = await (
      await request(`${gateway.url}/v1/models`, { headers, signal: AbortSignal.timeout(GATEWAY_COST.requestTimeoutMs) })
    ).body.text()
    bare.get('/v1/models', async (_req, reply) => reply.type('application/json').send(body))
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
    await throughput(`${gateway.url}/v1/models`, headers, o.warmupRequests, dispatcher)
    await throughput(`${bareUrl}/v1/models`, {}, o.warmupRequests, dispatcher)
    const gw: number[] = []
    const base: number[] = []
    for (let round = 0; round < o.rounds; round += 1) {
      gw.push(await throughput(`${gateway.url}/v1/models`, headers, o.requestsPerRound, dispatcher))
      base.push(await throughput(`${bareUrl}/v1/models`, {}, o.requestsPerRound, dispatcher))
    }
    const ratio = median(gw.map((g, i) => g / (base[i] as number)))
    return {
      benchmark: 'reference gateway cost (GET /v1/models vs bare Fastify, req/s)',
      measured: median(gw).toFixed(0),
      baseline: median(base).toFixed(0),
      figure: ratio.toFixed(2),
      goal: `>= ${GATEWAY_COST.goal}`,
      met: ratio >= GATEWAY_COST.goal,
      note: `${o.rounds} alternating rounds of ${o.requestsPerRound} requests, ${GATEWAY_COST.concurrency} in flight, ${body.length}-byte body; gateway, bare route and client in this one process (60 s minute, tier-5 key), median of the per-round ratios.`,
    }
  } finally {
    await dispatcher.close()
    await bare.close()
    await gateway.close()
  }
}
