/** The thread of startGatewayThread: starts the gateway, says where, and closes it when told. */
import { parentPort, workerData } from 'node:worker_threads'
import { startEmbeddedGateway, type EmbeddedGatewayOptions } from '../../gateway/embedded.ts'

const port = parentPort
if (port === null) throw new Error('gateway-thread-main.ts runs as a worker thread')
const { close, ...where } = await startEmbeddedGateway(workerData as EmbeddedGatewayOptions)
port.postMessage(where)
port.once('message', () => void close().then(() => port.close()))
