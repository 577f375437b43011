/**
 * One thread of a run's worker pool (workers.ts): for each phase it is given, it runs its slice of the schedule
 * with its own connections and recorder, reports its counts once a second, and posts what it measured; a `stop`
 * message ends the phase as a stopped phase ends. It waits for the next phase until the pool closes it.
 */
import { parentPort } from 'node:worker_threads'
import { Agent } from 'undici'
import { countBy, plannedOffsets } from './arrivals.ts'
import { PhaseRecorder, nowMs } from './recorder.ts'
import { runScheduled } from './scheduler.ts'
import { StreamStats } from './stream-stats.ts'
import { oneLine } from './one-line.ts'
import type { PoolMessage, WorkerMessage, WorkerTask } from './workers.ts'

const port = parentPort
if (port === null) throw new Error('worker-main.ts runs as a worker thread of workers.ts')

/** The phase under way: its id, its stop, and the start the pool gives once every thread is ready. */
let current: { id: number; stop: AbortController; go: (startedAt: number) => void } | null = null

port.on('message', (m: PoolMessage) => {
  if (m.kind === 'task') void runTask(m.id, m.task)
  else if (m.kind === 'go') current?.go(m.startedAt)
  else if (m.kind === 'stop') {
    current?.stop.abort(m.reason)
    current?.go(nowMs())
  } else port.close()
})

async function runTask(id: number, task: WorkerTask): Promise<void> {
  const post = (m: WorkerMessage): void => (port as NonNullable<typeof port>).postMessage(m)
  const stop = new AbortController()
  const phaseStart = new Promise<number>((go) => {
    current = { id, stop, go }
  })
  const { plan } = task
  // HTTP/1.1 only, as the runner's own Agent (load/runner.ts).
  const dispatcher = new Agent({ connections: plan.connections, pipelining: 1, allowH2: false })
  post({ id, kind: 'ready' })
  const phaseStartedAt = await phaseStart
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
  const ticker = setInterval(() => {
    const c = recorder.counts()
    post({ id, kind: 'counts', sent: recorder.sent, byStatus: c.byStatus, errors: c.errors })
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
    post({ id, kind: 'result', part: { ...part, ...(stream ? { stream: stream.figures() } : {}) } })
  } catch (error) {
    post({ id, kind: 'error', message: oneLine(error) })
  } finally {
    clearInterval(ticker)
    if (current?.id === id) current = null
    await dispatcher.close()
  }
}
