/**
 * The target of the open-loop limit benchmark, run as a child process: a TCP server that answers every request
 * head it reads (GET only, no body) with one canned HTTP/1.1 keep-alive response. It parses nothing but the
 * blank line that ends a head, so it costs far less per call than any generator, which must parse each answer;
 * the reference gateway would be the bottleneck, and the benchmark would measure it instead of the generators.
 */
import { createServer } from 'node:net'

const BODY = '{"object":"list","data":[]}'
const RESPONSE = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\nconnection: keep-alive\r\n\r\n${BODY}`,
)
const HEAD_END = '\r\n\r\n'

const server = createServer((socket) => {
  socket.setNoDelay(true)
  let tail = ''
  socket.on('data', (chunk: Buffer) => {
    // A head may arrive split across chunks: keep the last bytes that could start its end.
    const text = tail + chunk.toString('latin1')
    let answers = 0
    let from = 0
    for (let at = text.indexOf(HEAD_END); at !== -1; at = text.indexOf(HEAD_END, from)) {
      answers += 1
      from = at + HEAD_END.length
    }
    tail = text.slice(Math.max(from, text.length - (HEAD_END.length - 1)))
    if (answers === 1) socket.write(RESPONSE)
    else if (answers > 1) socket.write(Buffer.concat(Array.from({ length: answers }, () => RESPONSE)))
  })
  socket.on('error', () => socket.destroy())
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address !== null && typeof address === 'object')
    process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`)
})
process.on('SIGTERM', () => process.exit(0))
