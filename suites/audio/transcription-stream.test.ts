/**
 * Transcription streaming (Part 2 §4.3, §6.1): stream true on a newer model gives transcript.text.delta events
 * and a final transcript.text.done with text and usage; a diarized stream also carries transcript.text.segment
 * events. Events are typed by their data's type, or their event name; unknown types are ignored (Part 1 §9.2).
 */
import { describe } from 'vitest'
import { expectStatus, expectThat, fail, precondition } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { memo } from '../../harness/helpers.ts'
import { observe } from '../../harness/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { eventJson } from '../../harness/sse.ts'
import { check, target } from '../../harness/suite.ts'
import { audioCalls } from './calls.ts'
import { wavPart } from './forms.ts'

const api = target()
const { models, form } = audioCalls(api)

const DELTA = 'transcript.text.delta'
const DONE = 'transcript.text.done'
const SEGMENT = 'transcript.text.segment'

interface Typed {
  index: number
  type: string | undefined
  data: Record<string, unknown> | undefined
}

function typed(ex: Exchange): Typed[] {
  return (ex.stream?.events ?? []).map((event) => {
    const parsed = eventJson(event)
    const data = parsed.ok && isObject(parsed.value) ? parsed.value : undefined
    return { index: event.index, type: typeof data?.type === 'string' ? data.type : event.event, data }
  })
}

/** The events of a stream the test builds on: a stream that did not come is P2-6.1-transcript-stream's to report. */
function eventsOf(ex: Exchange, requirementId: string): Typed[] {
  precondition(
    ex.status === 200 && ex.stream !== undefined,
    requirementId,
    `stream true answered ${ex.status} ${ex.header('content-type') ?? ''}`,
  )
  return typed(ex)
}

function schemaErrors(ref: string, events: Typed[]): string[] {
  return events.flatMap((e) =>
    schemas()
      .validate(ref, e.data)
      .errors.map((error) => `event #${e.index} (${e.type}) ${error}`),
  )
}

const newerStream = memo(async () =>
  form({
    fields: [
      ['model', await models.model('transcribe-newer')],
      ['response_format', 'json'],
      ['stream', 'true'],
    ],
    file: wavPart(12),
    seconds: 12,
    stream: true,
  }),
)
const diarizedStream = memo(async () =>
  form({
    fields: [
      ['model', await models.model('diarize')],
      ['response_format', 'json'],
      ['stream', 'true'],
    ],
    file: wavPart(12),
    seconds: 12,
    stream: true,
  }),
)

describe('transcription streams (§4.3, §6.1)', () => {
  check('P2-6.1-transcript-stream', 'deltas, then one transcript.text.done with text and usage', async () => {
    const ex = await newerStream()
    expectStatus(ex, 200)
    expectThat(
      /^text\/event-stream\b/i.test(ex.header('content-type') ?? '') && ex.stream !== undefined,
      'content-type text/event-stream',
      ex.header('content-type') ?? '(none)',
      ex,
    )
    const events = typed(ex)
    observe('transcription stream', `${events.length} events: ${[...new Set(events.map((e) => e.type))].join(', ')}`)
    const deltas = events.filter((e) => e.type === DELTA)
    const done = events.filter((e) => e.type === DONE)
    expectThat(deltas.length > 0, `at least one ${DELTA}`, 'none', ex)
    expectThat(done.length === 1, `exactly one ${DONE}`, `${done.length}`, ex)
    const errors = [
      ...schemaErrors('audio/transcript-delta.json', deltas),
      ...schemaErrors('audio/transcript-done.json', done),
    ]
    expectThat(errors.length === 0, 'delta events with delta, the done event with text and usage', errors, ex)
    const late = deltas.filter((d) => d.index > (done[0] as Typed).index)
    expectThat(
      late.length === 0,
      `no ${DELTA} after ${DONE}`,
      late.map((d) => `#${d.index}`),
      ex,
    )
    observe('transcript.text.done usage', JSON.stringify((done[0] as Typed).data?.usage).slice(0, 300))
  })

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
      expectStatus(ex, 200)
      const events = eventsOf(ex, 'P2-6.1-transcript-stream')
      const segments = events.filter((e) => e.type === SEGMENT)
      if (segments.length === 0)
        fail(
          `at least one ${SEGMENT} in a diarized stream`,
          `none among ${events.length} events (${[...new Set(events.map((e) => e.type))].join(', ')})`,
          ex,
        )
      const errors = schemaErrors('audio/transcript-segment.json', segments)
      expectThat(errors.length === 0, 'segments with speaker, start, end and text', errors, ex)
      observe(
        'diarized stream',
        `${segments.length} segments, speakers ${[...new Set(segments.map((s) => String(s.data?.speaker)))].join(', ')}`,
      )
    },
  )
})
