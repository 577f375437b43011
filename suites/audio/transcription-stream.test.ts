/**
 * Transcription streaming (Part 2 §4.3, §6.1): stream true on a newer model gives transcript.text.delta events
 * and a final transcript.text.done with text and usage; a diarized stream also carries transcript.text.segment
 * events. Events are typed by their data's type, or their event name; unknown types are ignored (Part 1 §9.2).
 *
 * What is transcribed is speech the target made itself (/v1/audio/speech), not a tone: a real model hears no
 * words in a tone and rightly answers an empty text, with no partial text to stream. Deltas and segments are
 * required only when the final text is not empty.
 */
import { describe } from 'vitest'
import { expectSuccess, expectThat, fail, notObserved, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { memo } from '../../harness/worker/helpers.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { eventJson } from '../../harness/worker/sse.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { audioCalls } from './calls.ts'

const api = target()
const { models, form, spoken } = audioCalls(api)

const DELTA = 'transcript.text.delta'
const DONE = 'transcript.text.done'
const SEGMENT = 'transcript.text.segment'

interface Typed {
  index: number
  type: string | undefined
  data: Record<string, unknown> | undefined
}

/**
 * §4.3 names the events, not their framing: server-sent events, or else newline-delimited JSON (each non-blank line
 * a JSON object); undefined when the body is neither.
 */
function framed(ex: Exchange): { framing: string; events: Typed[] } | undefined {
  if (ex.stream !== undefined) {
    const events = ex.stream.events.map((event) => {
      const parsed = eventJson(event)
      const data = parsed.ok && isObject(parsed.value) ? parsed.value : undefined
      return { index: event.index, type: typeof data?.type === 'string' ? data.type : event.event, data }
    })
    return { framing: 'server-sent events', events }
  }
  const lines = ex.text.split(/\r?\n/).filter((line) => line.trim() !== '')
  const objects = lines.map((line) => {
    try {
      return JSON.parse(line) as unknown
    } catch {
      return undefined
    }
  })
  if (lines.length === 0 || !objects.every(isObject)) return undefined
  const events = objects.map((data, index) => ({
    index,
    type: typeof data.type === 'string' ? data.type : undefined,
    data,
  }))
  return { framing: 'newline-delimited JSON', events }
}

function typed(ex: Exchange): Typed[] {
  return framed(ex)?.events ?? []
}

/** The events of a stream the test builds on: a stream that did not come is P2-6.1-transcript-stream's to report. */
function eventsOf(ex: Exchange, requirementId: string): Typed[] {
  const stream = ex.status >= 200 && ex.status < 300 ? framed(ex) : undefined
  precondition(
    stream !== undefined,
    requirementId,
    `stream true answered ${ex.status} ${ex.header('content-type') ?? ''}`,
  )
  return stream.events
}

function schemaErrors(ref: string, events: Typed[]): string[] {
  return events.flatMap((e) =>
    schemas()
      .validate(ref, e.data)
      .errors.map((error) => `event #${e.index} (${e.type}) ${error}`),
  )
}

async function streamOf(role: 'transcribe-newer' | 'diarize', format: string): Promise<Exchange> {
  const model = await models.model(role)
  const { file, seconds } = await spoken()
  return form({
    fields: [
      ['model', model],
      ['response_format', format],
      ['stream', 'true'],
    ],
    file,
    seconds,
    stream: true,
  })
}

const newerStream = memo(() => streamOf('transcribe-newer', 'json'))
// §4.3: "diarized_json for diarization"; how the diarization model streams json is only recorded.
const diarizedStream = memo(() => streamOf('diarize', 'diarized_json'))

/**
 * The fields §4.3 names on a segment ("speaker, start, end, text"), present; their types are not stated
 * (P2-6.1-transcript-segment-types reads them).
 */
const SEGMENT_FIELDS = ['speaker', 'start', 'end', 'text'] as const
function missingFields(events: Typed[]): string[] {
  return events.flatMap((e) =>
    SEGMENT_FIELDS.filter((f) => e.data?.[f] === undefined || e.data?.[f] === null).map(
      (f) => `event #${e.index}: no ${f}`,
    ),
  )
}

/** The final text of a stream, or undefined when it has no done event with text. */
function finalText(events: Typed[]): string | undefined {
  const text = events.find((e) => e.type === DONE)?.data?.text
  return typeof text === 'string' ? text : undefined
}

describe('transcription streams (§4.3, §6.1)', () => {
  // §4.3 names the events and their order (partial text, then final text and usage): those are the MUST; the
  // fields' types, and a single done, are P2-6.1-transcript-stream-types.
  check('P2-6.1-transcript-stream', 'deltas, then transcript.text.done with text and usage', async () => {
    const ex = await newerStream()
    expectSuccess(ex)
    const stream = framed(ex)
    if (stream === undefined)
      return fail(
        'events as server-sent events or newline-delimited JSON',
        `${ex.header('content-type') ?? '(no content-type)'}: ${ex.text.slice(0, 120)}`,
        ex,
      )
    observe('transcription stream framing', `${stream.framing} (${ex.header('content-type') ?? 'no content-type'})`)
    const events = stream.events
    observe('transcription stream', `${events.length} events: ${[...new Set(events.map((e) => e.type))].join(', ')}`)
    const deltas = events.filter((e) => e.type === DELTA)
    const done = events.find((e) => e.type === DONE)
    if (done === undefined) return fail(`a ${DONE} event`, `none among ${events.length} events`, ex)
    const missing = (['text', 'usage'] as const).filter((f) => done.data?.[f] === undefined || done.data?.[f] === null)
    expectThat(missing.length === 0, `${DONE} carrying text and usage`, `no ${missing.join(', no ')}`, ex)
    const text = finalText([done])
    observe('transcription stream text', JSON.stringify((text ?? '').slice(0, 200)))
    // Partial text comes only where there is text: an empty transcript may stream none.
    if (text !== undefined && text.trim() !== '')
      expectThat(deltas.length > 0, `at least one ${DELTA} before a non-empty final text`, 'none', ex)
    const late = deltas.filter((d) => d.index > done.index)
    expectThat(
      late.length === 0,
      `no ${DELTA} after ${DONE}`,
      late.map((d) => `#${d.index}`),
      ex,
    )
    observe('transcript.text.done usage', JSON.stringify(done.data?.usage).slice(0, 300))
  })

  check(
    'P2-6.1-transcript-stream-types',
    'delta and text strings, usage an object, and exactly one transcript.text.done',
    async () => {
      const events = eventsOf(await newerStream(), 'P2-6.1-transcript-stream')
      const done = events.filter((e) => e.type === DONE)
      precondition(done.length > 0, 'P2-6.1-transcript-stream', `no ${DONE}`)
      const bare = done.filter((e) => e.data?.text == null || e.data?.usage == null)
      precondition(bare.length === 0, 'P2-6.1-transcript-stream', `a ${DONE} without text or usage`)
      // segment_id, which diarized streams "may carry", is P2-6.1-transcript-segment-types'.
      const errors = [
        ...(done.length > 1 ? [`${done.length} ${DONE} events`] : []),
        ...events
          .filter((e) => e.type === DELTA && typeof e.data?.delta !== 'string')
          .map((d) => `event #${d.index}: delta not a string`),
        ...schemaErrors('audio/transcript-done.json', done),
      ]
      expectThat(errors.length === 0, 'the usual types of the stream fields, and one final event', errors)
    },
  )

  check('P2-6.1-transcript-deltas-join', 'the deltas joined equal the done text', async () => {
    const events = eventsOf(await newerStream(), 'P2-6.1-transcript-stream')
    const done = events.find((e) => e.type === DONE)
    precondition(typeof done?.data?.text === 'string', 'P2-6.1-transcript-stream', `no ${DONE} with text`)
    const joined = events
      .filter((e) => e.type === DELTA)
      .map((e) => (typeof e.data?.delta === 'string' ? e.data.delta : ''))
      .join('')
    expectThat(
      joined === done.data.text,
      'the deltas joined giving the final text',
      `joined ${JSON.stringify(joined.slice(0, 200))}, final ${JSON.stringify(String(done.data.text).slice(0, 200))}`,
    )
  })

  check(
    'P2-6.1-transcript-segment',
    'a diarized stream carries transcript.text.segment events with speaker, start, end, text',
    async () => {
      const ex = await diarizedStream()
      expectSuccess(ex)
      const events = eventsOf(ex, 'P2-6.1-transcript-stream')
      const segments = events.filter((e) => e.type === SEGMENT)
      const text = finalText(events)
      observe('diarized stream text', JSON.stringify((text ?? '').slice(0, 200)))
      if (segments.length === 0 && (text === undefined || text.trim() === ''))
        notObserved('a diarized stream with words: this one heard none (an empty final text), so no segment was due')
      if (segments.length === 0)
        fail(
          `at least one ${SEGMENT} in a diarized stream`,
          `none among ${events.length} events (${[...new Set(events.map((e) => e.type))].join(', ')})`,
          ex,
        )
      const errors = missingFields(segments)
      expectThat(errors.length === 0, 'segments with speaker, start, end and text', errors, ex)
      observe(
        'diarized stream',
        `${segments.length} segments, speakers ${[...new Set(segments.map((s) => JSON.stringify(s.data?.speaker)))].join(', ')}`,
      )
    },
  )

  check('P2-6.1-transcript-segment', 'how the diarization model streams response_format json is recorded', async () => {
    const ex = await streamOf('diarize', 'json')
    const events = ex.status === 200 ? typed(ex) : []
    observe(
      'diarized stream asked for json',
      `answered ${ex.status}, ${events.length} events: ${[...new Set(events.map((e) => e.type))].join(', ')}`,
    )
  })

  check(
    'P2-6.1-transcript-segment-types',
    'diarized stream segments: speaker and text strings, start and end numbers, segment_id a string',
    async () => {
      const events = eventsOf(await diarizedStream(), 'P2-6.1-transcript-stream')
      const segments = events.filter((e) => e.type === SEGMENT)
      if (segments.length === 0) notObserved('a diarized stream with segments')
      const withId = events.filter((e) => e.type === DELTA && e.data?.segment_id !== undefined)
      const errors = [
        ...schemaErrors('audio/transcript-segment.json', segments),
        ...withId
          .filter((e) => typeof e.data?.segment_id !== 'string')
          .map((e) => `event #${e.index}: segment_id ${JSON.stringify(e.data?.segment_id)}`),
      ]
      expectThat(errors.length === 0, 'the usual types of the segment fields', errors)
    },
  )
})
