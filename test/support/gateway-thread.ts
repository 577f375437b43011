/**
 * The reference gateway on a thread of its own. A self-test that judges one run's reports (whole files read and
 * checked against their schemas, synchronously) would otherwise stall every gateway it hosts on its own thread,
 * and with them the streams of a run going on beside it: a stall of the test, read by that run as the target's.
 */
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { EmbeddedGateway, EmbeddedGatewayOptions } from '../../gateway/embedded.ts'

const ENTRY = new URL('./gateway-thread-main.ts', import.meta.url)

type Started = Omit<EmbeddedGateway, 'close'>

export async function startGatewayThread(options: EmbeddedGatewayOptions = {}): Promise<EmbeddedGateway> {
  const worker = new Worker(ENTRY, { workerData: options })
  const [message] = (await Promise.race([
    once(worker, 'message'),
    once(worker, 'error').then(([e]) => Promise.reject(e)),
  ])) as [Started]
  return {
    ...message,
    close: async () => {
      worker.postMessage('close')
      await once(worker, 'exit')
    },
  }
}
