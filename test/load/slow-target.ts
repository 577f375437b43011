/**
 * A target that saturates at a known rate: a server on loopback that answers at most `concurrency` calls at once,
 * each after `serviceMs`, and queues the rest (as a gateway in front of a slow upstream does), so that it serves
 * about concurrency * 1000 / serviceMs calls a second and its latency grows without bound past that.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SlowTarget {
  url: string
  /** Calls a second it serves at most. */
  capacity: number
  close(): Promise<void>
}

export async function startSlowTarget(o: {
  concurrency: number
  serviceMs: number
  model: string
}): Promise<SlowTarget> {
  let busy = 0
  const queue: (() => void)[] = []
  const release = (): void => {
    busy -= 1
    const next = queue.shift()
    if (next) next()
  }
  const serve = (answer: () => void): void => {
    const run = (): void => {
      busy += 1
      setTimeout(() => {
        answer()
        release()
      }, o.serviceMs)
    }
    if (busy < o.concurrency) run()
    else queue.push(run)
  }
  const models = JSON.stringify({ object: 'list', data: [{ id: o.model, object: 'model', owned_by: 'test' }] })
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(models)
        return
      }
      serve(() => {
        if (res.destroyed) return
        const body = JSON.stringify({
          id: 'resp_1',
          object: 'response',
          status: 'completed',
          model: o.model,
          output: [],
        })
        res.writeHead(200, { 'content-type': 'application/json' }).end(body)
      })
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    capacity: (o.concurrency * 1000) / o.serviceMs,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
