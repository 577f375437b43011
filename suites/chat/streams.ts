/** Reading streamed chat completions (Part 1 §6.4), shared by the stream and transaction checks. */
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { CAPS, chatStream, LONG_PROMPT, userMessage } from './fixtures.ts'

/** A streamed completion of a long essay on a small budget, with usage asked for at the end. */
export function cutStream(api: TargetClient, model: string): Promise<Exchange> {
  return chatStream(api, {
    model,
    messages: [userMessage(LONG_PROMPT)],
    max_completion_tokens: CAPS.cut,
    stream_options: { include_usage: true },
  })
}

/** Why a stream is not a whole, cleanly ended SSE stream; undefined when it is. */
export function streamProblem(ex: Exchange): string | undefined {
  if (ex.status < 200 || ex.status >= 300) return `status ${ex.status}, not a 2xx`
  const type = ex.header('content-type') ?? ''
  if (!/^text\/event-stream\b/i.test(type)) return `Content-Type "${type}", not text/event-stream`
  const s = ex.stream
  if (!s) return 'no event stream was read'
  if (s.end.reason !== 'end') return `the stream stopped by ${s.end.reason} after ${s.end.events} events`
  if (!s.end.cleanEnd) return `the stream ended inside an event: "${s.end.trailing.slice(0, 120)}"`
  if (s.events.length === 0) return 'the stream had no event'
  return undefined
}
