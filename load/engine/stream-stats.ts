/**
 * The figures LLM-serving benchmarks report for streamed generation, from the server-sent events of streamed
 * /v1/responses calls (Part 1 section 6.2): time to first token (the first output_text delta), inter-token
 * latency (gaps between deltas), end-to-end latency, and output tokens per second after the first token.
 */
import type { StreamFigures } from '../types.ts'
import { newHistogram, recordMs, summarize } from './histogram.ts'

const DELTA = 'response.output_text.delta'
// A stream ends properly with response.completed, or with response.incomplete when max_output_tokens ran out
// (Part 1 section 4.5, rule 7): a budget cut is the answer asked for, not a broken stream.
const ENDS = new Set(['response.completed', 'response.incomplete'])

/** One stream's own figures, for its goodness (objectives.ts isGood). */
export interface StreamCall {
  completed: boolean
  ttftMs: number | null
  tpotMs: number | null
  meanGapMs: number | null
}

export interface StreamTimer {
  event(type: string, data: string, at: number): void
  end(at: number): StreamCall
  /** The stream broke before its end (a deadline, a reset, a byte cap): truncated, and no latency figure of it. */
  cut(): void
}

export class StreamStats {
  readonly ttft = newHistogram()
  readonly interToken = newHistogram()
  readonly endToEnd = newHistogram()
  readonly tokensPerSecond = newHistogram()
  readonly tpot = newHistogram()
  completed = 0
  truncated = 0

  begin(sentAt: number): StreamTimer {
    let first: number | null = null
    let last: number | null = null
    let deltas = 0
    let outputTokens: number | null = null
    let done = false
    return {
      event: (type, data, at) => {
        if (type === DELTA) {
          deltas += 1
          if (first === null) {
            first = at
            recordMs(this.ttft, at - sentAt)
          } else if (last !== null) {
            recordMs(this.interToken, at - last)
          }
          last = at
        } else if (ENDS.has(type)) {
          done = true
          try {
            const tokens = (JSON.parse(data) as { response?: { usage?: { output_tokens?: unknown } } }).response?.usage
              ?.output_tokens
            if (typeof tokens === 'number' && Number.isFinite(tokens)) outputTokens = tokens
          } catch {
            // A completed event whose payload does not parse still completes the stream; its shape is not shown.
          }
        }
      },
      cut: () => {
        this.truncated += 1
      },
      end: (at) => {
        recordMs(this.endToEnd, at - sentAt)
        if (done) this.completed += 1
        else this.truncated += 1
        const tokens = outputTokens ?? deltas
        let tpotMs: number | null = null
        if (first !== null && last !== null && last > first && tokens > 1) {
          // Tokens after the first over the time they took, in tokens per second (types.ts: StreamFigures).
          recordMs(this.tokensPerSecond, (tokens - 1) / ((last - first) / 1000))
          tpotMs = (last - first) / (tokens - 1)
          recordMs(this.tpot, tpotMs)
        }
        const meanGapMs = first !== null && last !== null && deltas > 1 ? (last - first) / (deltas - 1) : null
        return { completed: done, ttftMs: first === null ? null : first - sentAt, tpotMs, meanGapMs }
      },
    }
  }

  figures(): StreamFigures {
    return {
      ttft: summarize(this.ttft),
      interToken: summarize(this.interToken),
      endToEnd: summarize(this.endToEnd),
      tokensPerSecond: summarize(this.tokensPerSecond),
      tpot: summarize(this.tpot),
      completed: this.completed,
      truncated: this.truncated,
    }
  }
}
