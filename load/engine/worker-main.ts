/**
 * One worker of an open-loop phase (workers.ts): runs its slice of the schedule with its own connections and
 * recorder, reports its counts once a second, and posts what it measured; a `stop` message ends it as a stopped
 * phase ends.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Agent } from 'undici'
import { countBy, plannedOffsets } from './arrivals.ts'
import { PhaseRecorder, nowMs } from './recorder.ts'
import { runScheduled } from './scheduler.ts'
import { StreamStats } from './stream-stats.ts'
import type { WorkerMessage, WorkerTask } from './workers.ts'

const task = workerData as WorkerTask
const port = parentPort
if (port === null) throw new Error('worker-main.ts runs as a worker thread of workers.ts')
const post = (m: WorkerMessage): void => port.postMessage(m)

const stop = new AbortController()
let go: (startedAt: number) => void = () => undefined
const phaseStart = new Promise<number>((resolve) => {
  go = resolve
})
port.on('message', (m: { kind: string; reason?: string; startedAt?: number }) => {
  if (m.kind === 'stop') {
    stop.abort(m.reason ?? 'stopped')
    go(nowMs())
  } else if (m.kind === 'go') go(m.startedAt as number)
})
post({ kind: 'ready' })
const phaseStartedAt = await phaseStart

const { plan } = task
const rate = plan.rate as number
const offsets = plan.arrival ? plannedOffsets(rate, plan.durationMs, plan.arrival, task.maxRequests) : undefined
// A constant plan's instants interleave: slice i sends at start + (k * count + i) / (rate * count).
const startedAt = phaseStartedAt + (offsets ? 0 : (task.index * 1000) / (rate * task.count))
const recorder = new PhaseRecorder(plan, {
  minuteMs: task.minuteMs,
  bucketMs: task.bucketMs,
  startedAt,
  objectives: task.objectives,
  ...(offsets ? { plannedBy: (ms: number) => countBy(offsets, ms) } : {}),
})
const stream = plan.requests.some((r) => r.stream) ? new StreamStats() : undefined
// HTTP/1.1 only, as the runner's own Agent (load/runner.ts).
const dispatcher = new Agent({ connections: plan.connections, pipelining: 1, allowH2: false })
const ticker = setInterval(() => {
  const c = recorder.counts()
  post({ kind: 'counts', sent: recorder.sent, byStatus: c.byStatus, errors: c.errors })
}, 1000)
try {
  await runScheduled({
    baseUrl: task.baseUrl,
    key: task.key,
    dispatcher,
    timeoutMs: task.timeoutMs,
    signal: stop.signal,
    recorder,
    requests: plan.requests,
    rate,
    connections: plan.connections,
    durationMs: plan.durationMs - (startedAt - phaseStartedAt),
    maxRequests: task.maxRequests,
    ...(stream ? { stream } : {}),
    ...(offsets ? { offsets } : {}),
  })
  const part = recorder.result(nowMs())
  post({ kind: 'result', part: { ...part, ...(stream ? { stream: stream.figures() } : {}) } })
} catch (error) {
  post({ kind: 'error', message: (error as Error).stack ?? String(error) })
} finally {
  clearInterval(ticker)
  await dispatcher.close()
  port.close()
}
