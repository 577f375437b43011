/**
 * The reference gateway's cost: GET /v1/models through the whole gateway (auth, rate limiter, shared headers,
 * transaction recording) against a bare Fastify route that answers the same body the same way (the text the
 * gateway sent, its content type, a synchronous handler) and does nothing else. Both get the same request from the
 * same client; gateway, bare route and client run in this one process, so the client's cost is the same on both
 * sides. Loopback only, bounded in requests.
 *
 * What makes the figure hold on a shared host:
 * - a warm-up on each side of more calls than the gateway keeps transactions: the JIT has settled and the gateway's
 *   transaction ring is full, so the rounds see its steady state (each call evicting one), not a heap still growing;
 * - rounds of thousands of calls, long against a collection's pause or a timer's jitter, alternating between the
 *   two and alternating which goes first, so that drift in the machine's load and the garbage one side leaves for
 *   the next fall on both alike;
 * - the figure is the median of the per-round ratios. The note adds the median ratio of CPU time per call, which
 *   leaves out the time this process waited for a core;
 * - a process of its own (gateway-cost-child.ts), which no earlier part of the bench has used.
 */
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { Agent, request } from 'undici'
import { startEmbeddedGateway } from '../gateway/embedded.ts'
import { spawnNodeScript, stopChild, waitForExit } from './children.ts'
import { median, type Row } from './table.ts'

interface GatewayCostOptions {
  rounds: number // alternating rounds per target
  requestsPerRound: number
  /** Per target; in a full run more than the gateway keeps transactions (its ring is then full before the rounds). */
  warmupRequests: number
}

export const GATEWAY_COST = {
  concurrency: 16,
  goal: 0.8, // the gateway keeps at least 80 % of the throughput of a bare route: a real gateway's own cost is small
  requestTimeoutMs: 10_000, // a loopback answer takes milliseconds; a hang must not hang the bench
  /**
   * The gateway's rate-limit minute. Tier 5 allows 30,000 calls a minute, which the warm-up and rounds exceed within
   * seconds, after which the gateway would answer 429; at 30,000 a second the limiter does all its work on every
   * call and refuses none.
   */
  minuteMs: 1000,
}

interface RoundResult {
  /** Calls a second. */
  rate: number
  /** Microseconds of this process's CPU time per call. */
  cpuPerCall: number
}

async function round(
  url: string,
  headers: Record<string, string>,
  requests: number,
  dispatcher: Agent,
): Promise<RoundResult> {
  let next = 0
  const cpu = process.cpuUsage()
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
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { rate: requests / seconds, cpuPerCall: (used.user + used.system) / requests }
}

const CHILD = fileURLToPath(new URL('./gateway-cost-child.ts', import.meta.url))

/** The benchmark in a fresh child process: its row, or an error naming how the child ended. */
export async function gatewayCostInChild(o: GatewayCostOptions, timeoutMs: number): Promise<Row> {
  const child = spawnNodeScript(CHILD, [JSON.stringify(o)])
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const end = await waitForExit(child, timeoutMs)
  if (end === null) {
    await stopChild(child)
    throw new Error(`the gateway cost child ran past ${timeoutMs / 1000} s`)
  }
  if (end.code !== 0) {
    const last = stderr.trim().split('\n').slice(-3).join(' ')
    throw new Error(`the gateway cost child ended with ${end.code ?? end.signal}: ${last}`)
  }
  return JSON.parse(stdout) as Row
}

export async function gatewayCost(o: GatewayCostOptions): Promise<Row> {
  // The tier-5 key has the most request room, so the benchmark measures the gateway, not its rate limiter refusing.
  const gateway = await startEmbeddedGateway({ minuteMs: GATEWAY_COST.minuteMs })
  const bare = Fastify()
  // undici's own timeouts rather than a signal per request: a timer per call would add to the cost measured.
  const dispatcher = new Agent({
    connections: GATEWAY_COST.concurrency,
    headersTimeout: GATEWAY_COST.requestTimeoutMs,
    bodyTimeout: GATEWAY_COST.requestTimeoutMs,
  })
  try {
    const headers = { authorization: `Bearer ${gateway.keys.tier5}` }
    const first = await request(`${gateway.url}/v1/models`, {
      headers,
      signal: AbortSignal.timeout(GATEWAY_COST.requestTimeoutMs),
    })
    const body = await first.body.text()
    const contentType = String(first.headers['content-type'])
    bare.get('/v1/models', (_request, reply) => {
      reply.header('content-type', contentType)
      return body
    })
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
    const sides = [
      { url: `${gateway.url}/v1/models`, results: [] as RoundResult[] },
      { url: `${bareUrl}/v1/models`, results: [] as RoundResult[] },
    ] as const
    const [gw, base] = sides
    for (const side of sides) await round(side.url, headers, o.warmupRequests, dispatcher)
    for (let i = 0; i < o.rounds; i += 1) {
      for (const side of i % 2 === 0 ? sides : [base, gw]) {
        side.results.push(await round(side.url, headers, o.requestsPerRound, dispatcher))
      }
    }
    const ratio = median(gw.results.map((g, i) => g.rate / (base.results[i] as RoundResult).rate))
    const cpuRatio = median(gw.results.map((g, i) => (base.results[i] as RoundResult).cpuPerCall / g.cpuPerCall))
    const cpu = (results: RoundResult[]): string => median(results.map((r) => r.cpuPerCall)).toFixed(0)
    return {
      benchmark: 'reference gateway cost (GET /v1/models vs bare Fastify, req/s)',
      measured: median(gw.results.map((r) => r.rate)).toFixed(0),
      baseline: median(base.results.map((r) => r.rate)).toFixed(0),
      figure: ratio.toFixed(2),
      goal: `>= ${GATEWAY_COST.goal}`,
      met: ratio >= GATEWAY_COST.goal,
      note:
        `median of the per-round ratios of ${o.rounds} alternating rounds of ${o.requestsPerRound} requests each, ` +
        `${GATEWAY_COST.concurrency} in flight, after ${o.warmupRequests} on each side; ${body.length}-byte body, ` +
        `the same request to both, gateway, bare route and client in one fresh process (tier-5 key, ` +
        `${GATEWAY_COST.minuteMs / 1000} s rate-limit minute); CPU time per call ${cpu(gw.results)} us against ` +
        `${cpu(base.results)} us, ratio ${cpuRatio.toFixed(2)}.`,
    }
  } finally {
    await dispatcher.close()
    await bare.close()
    await gateway.close()
  }
}
