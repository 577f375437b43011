/**
 * The open-loop engine alone against the raw target (bench/raw-target.ts), for profiling: phases of runScheduled as
 * the open-loop bench probes them, each line its sends a second, the generator's CPU per call and the share of sends
 * late by more than 10 ms. Not part of `npm run bench`; run it under `node --cpu-prof` to see where a call's CPU goes.
 *
 *   node bench/engine-cap.ts [--seconds 5] [--rounds 3] [--rate 256000] [--calls N] [--autocannon | --bare-only]
 *
 * The default rate far outruns the engine (its cap); --calls ends each phase after N calls (under valgrind, whose
 * instruction counts at two values of N give a call's cost on a noisy host); --autocannon adds a closed-loop
 * autocannon round after each, with its CPU per call, as a yardstick on the same host at the same moment (--bare-only:
 * autocannon alone).
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { Agent } from 'undici'
import { nowMs, PhaseRecorder } from '../load/engine/recorder.ts'
import { runScheduled } from '../load/engine/scheduler.ts'
import { BUCKET_MS } from '../load/engine/series.ts'
import type { PhasePlan } from '../load/types.ts'
import { spawnNodeScript, stopChild } from './children.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '256000' },
    calls: { type: 'string' },
    autocannon: { type: 'boolean', default: false },
    'bare-only': { type: 'boolean', default: false },
  },
})
const seconds = Number(values.seconds)
const rate = Number(values.rate)
const CONNECTIONS = 32
const LATE_MS = 10

async function startTarget(): Promise<{ url: string; close: () => Promise<void> }> {
  const child = spawnNodeScript(fileURLToPath(new URL('./raw-target.ts', import.meta.url)), [])
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const found = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (found !== undefined) resolve(found)
    })
    child.once('exit', (code) => reject(new Error(`the raw target exited (${code})`)))
  })
  return { url, close: () => stopChild(child) }
}

/** CPU microseconds of this process over `run`, and what it returned. */
async function cpuOf<T>(run: () => Promise<T>): Promise<{ value: T; cpuUs: number }> {
  const before = process.cpuUsage()
  const value = await run()
  const cpu = process.cpuUsage(before)
  return { value, cpuUs: cpu.user + cpu.system }
}

async function ours(url: string): Promise<string> {
  const plan: PhasePlan = {
    name: 'cap',
    description: '',
    engine: 'scheduler',
    slot: 'main',
    requests: [{ method: 'GET', path: '/v1/models' }],
    rate,
    connections: CONNECTIONS,
    durationMs: seconds * 1000,
    bucket: null,
    expectedLimit: null,
    fromRest: false,
    verdicts: [],
  }
  const dispatcher = new Agent({ connections: CONNECTIONS, pipelining: 1, allowH2: false })
  const recorder = new PhaseRecorder(plan, { minuteMs: 60_000, bucketMs: BUCKET_MS, startedAt: nowMs() })
  const { cpuUs } = await cpuOf(() =>
    runScheduled({
      baseUrl: url,
      key: 'bench',
      dispatcher,
      timeoutMs: 10_000,
      signal: AbortSignal.timeout(seconds * 1000 + 10_000),
      recorder,
      requests: plan.requests,
      rate,
      connections: CONNECTIONS,
      durationMs: seconds * 1000,
      maxRequests: values.calls === undefined ? Number.MAX_SAFE_INTEGER : Number(values.calls),
    }),
  )
  await dispatcher.close()
  const lag = recorder.lag.toHdr()
  let lateShare = 0
  if (lag.maxValue > LATE_MS * 1000) {
    let lo = 0
    let hi = 100
    for (let i = 0; i < 30; i += 1) {
      const mid = (lo + hi) / 2
      if (lag.getValueAtPercentile(mid) <= LATE_MS * 1000) lo = mid
      else hi = mid
    }
    lateShare = 1 - lo / 100
  }
  const planned = Math.min(rate * seconds, Number.MAX_SAFE_INTEGER)
  const unsent = Math.max(0, planned - recorder.sent) / planned
  const c = recorder.counts()
  const result = recorder.result(nowMs())
  return (
    `ours ${(recorder.sent / seconds).toFixed(0)}/s, ${(cpuUs / recorder.sent).toFixed(1)} us CPU a call, ` +
    `late ${(lateShare * 100).toFixed(1)}%, unsent ${(unsent * 100).toFixed(1)}%, lag p99 ${(lag.getValueAtPercentile(99) / 1000).toFixed(2)} ms, ` +
    `max ${(lag.maxValue / 1000).toFixed(1)} ms; latency p50 ${result.latency.p50} p99 ${result.latency.p99} ms, ` +
    `at most ${result.maxInFlight} in flight; ${JSON.stringify(c)}`
  )
}

async function bare(url: string): Promise<string> {
  const { value, cpuUs } = await cpuOf(() =>
    autocannon({
      url: `${url}/v1/models`,
      connections: CONNECTIONS,
      ...(values.calls === undefined ? { duration: seconds } : { amount: Number(values.calls) }),
    }),
  )
  const total = value.requests.total
  return `autocannon ${(total / seconds).toFixed(0)}/s, ${(cpuUs / total).toFixed(1)} us CPU a call`
}

const target = await startTarget()
try {
  for (let round = 0; round < Number(values.rounds); round += 1) {
    if (!values['bare-only']) process.stdout.write(`${round}: ${await ours(target.url)}\n`)
    if (values.autocannon || values['bare-only']) process.stdout.write(`${round}: ${await bare(target.url)}\n`)
  }
} finally {
  await target.close()
}
