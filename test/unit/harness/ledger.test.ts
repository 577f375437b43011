/** The record ledger (harness/worker/records.ts, harness/report/ledger.ts): what stays the same, and what may move. */
import { describe, expect, test } from 'vitest'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'
import { ledgerFindings } from '../../../harness/report/ledger.ts'
import { LEDGER_REQ, recordNotes } from '../../../harness/worker/records.ts'
import type { SseEvent } from '../../../harness/worker/sse.ts'

let seq = 0
let clock = 1_000_000

/** One exchange that began after the previous one ended, with the notes the client would have made. */
function call(
  method: string,
  path: string,
  answer: unknown,
  over: { status?: number; asked?: unknown; svcId?: string; events?: SseEvent[]; contentType?: string } = {},
): ExchangeExcerpt {
  seq += 1
  clock += 100
  const excerpt: ExchangeExcerpt = {
    seq,
    method,
    url: `http://t${path}`,
    path,
    key: 'main',
    auth: 'bearer',
    requestHeaders: {},
    startedAt: clock,
    durationMs: 10,
    attempt: 1,
    status: over.status ?? 200,
    responseHeaders: {
      'svc-request-id': over.svcId ?? `svc-${seq}`,
      'content-type': over.contentType ?? 'application/json',
    },
  }
  const notes = recordNotes(excerpt, over.asked, false, () => answer, over.events)
  if (notes) excerpt.notes = notes
  return excerpt
}

function failing(exchanges: ExchangeExcerpt[]): string[] {
  return ledgerFindings(exchanges)
    .filter((f) => !f.ok)
    .map((f) => f.requirement)
    .sort()
}

const FILE = {
  id: 'file-1',
  object: 'file',
  bytes: 12,
  created_at: 1700000000,
  expires_at: null,
  filename: 'a.txt',
  purpose: 'user_data',
  status: null,
}

describe('files (Part 1 §2.4, §4.4)', () => {
  test('upload, retrieve and list agree: checked and passed', () => {
    const findings = ledgerFindings([
      call('POST', '/v1/files', FILE),
      call('GET', '/v1/files/file-1', FILE),
      call('GET', '/v1/files?limit=5', { object: 'list', data: [FILE] }),
    ])
    expect(findings).toEqual([expect.objectContaining({ requirement: LEDGER_REQ.fileFixed, ok: true })])
  })

  test('a file whose purpose or bytes differ on a later page is a contradiction', () => {
    expect(
      failing([call('POST', '/v1/files', FILE), call('GET', '/v1/files?after=x', { data: [{ ...FILE, bytes: 13 }] })]),
    ).toEqual([LEDGER_REQ.fileFixed])
    expect(
      failing([
        call('GET', '/v1/files', { data: [FILE] }),
        call('GET', '/v1/files/file-1', { ...FILE, purpose: 'vision' }),
      ]),
    ).toEqual([LEDGER_REQ.fileFixed])
  })

  test('status may change; an error answer shows no record', () => {
    expect(
      failing([call('POST', '/v1/files', FILE), call('GET', '/v1/files/file-1', { ...FILE, status: 'processed' })]),
    ).toEqual([])
    expect(
      failing([
        call('POST', '/v1/files', FILE),
        call('GET', '/v1/files/file-1', { ...FILE, bytes: 0 }, { status: 404 }),
      ]),
    ).toEqual([])
  })
})

describe('video jobs (Part 2 §2.1, §3, §4.1)', () => {
  const job = (over: Record<string, unknown>) => ({
    id: 'video_1',
    status: 'queued',
    safety_identifier: 'gc-x',
    progress: 0,
    ...over,
  })

  test("request_id on the create answer is that call's svc-request-id", () => {
    expect(failing([call('POST', '/v1/videos', job({ request_id: 'svc-a' }), { svcId: 'svc-a' })])).toEqual([])
    expect(failing([call('POST', '/v1/videos', job({ request_id: 'other' }), { svcId: 'svc-b' })])).toEqual([
      LEDGER_REQ.videoRequestId,
    ])
    expect(
      failing([call('POST', '/v1/videos/video_0/remix', job({ request_id: 'other' }), { svcId: 'svc-c' })]),
    ).toEqual([LEDGER_REQ.videoRequestId])
  })

  test('a listed job with another request_id or safety_identifier is a contradiction', () => {
    const created = call('POST', '/v1/videos', job({ request_id: 'svc-d' }), { svcId: 'svc-d' })
    expect(failing([created, call('GET', '/v1/videos', { data: [job({ request_id: 'fresh' })] })])).toEqual([
      LEDGER_REQ.videoRequestId,
    ])
    expect(
      failing([created, call('GET', '/v1/videos/video_1', job({ request_id: 'svc-d', safety_identifier: null }))]),
    ).toEqual([LEDGER_REQ.videoFixed])
  })

  test('status and progress move until the end; completed and failed then stay', () => {
    const id = { request_id: 'svc-e' }
    const moving = [
      job({ ...id, status: 'queued' }),
      job({ ...id, status: 'processing', progress: 50 }),
      job({ ...id, status: 'completed', progress: 100 }),
    ]
    expect(failing(moving.map((body) => call('GET', '/v1/videos/video_1', body)))).toEqual([])
    const regressed = [...moving, job({ ...id, status: 'processing' })]
    expect(
      failing([
        ...regressed.slice(0, 3).map((body) => call('GET', '/v1/videos/video_1', body)),
        call('GET', '/v1/videos', { data: [regressed[3]] }),
      ]),
    ).toEqual([LEDGER_REQ.videoTerminal])
    expect(
      failing([
        call('POST', '/v1/videos', job({ ...id, status: 'failed' }), { svcId: 'svc-e' }),
        call('GET', '/v1/videos/video_1', job({ ...id, status: 'queued' })),
      ]),
    ).toEqual([LEDGER_REQ.videoTerminal])
  })

  test('calls in flight together are not ordered: a read sent before the completed answer arrived may still show processing', () => {
    const completed = call('GET', '/v1/videos/video_1', job({ status: 'completed' }))
    const overlapping = call('GET', '/v1/videos', { data: [job({ status: 'processing' })] })
    overlapping.startedAt = completed.startedAt + 5
    expect(failing([completed, overlapping])).toEqual([])
  })
})

describe('responses (Part 1 §2.7, §4.5, §6.2)', () => {
  const event = (type: string, response: unknown): SseEvent =>
    ({ kind: 'event', event: type, data: JSON.stringify({ type, response }) }) as SseEvent

  test('a response that ended keeps its status and text when retrieved; one still running may move', () => {
    const streamed = call('POST', '/v1/responses', undefined, {
      asked: { stream: true },
      contentType: 'text/event-stream',
      events: [
        event('response.created', { id: 'resp_1', status: 'in_progress' }),
        event('response.completed', { id: 'resp_1', status: 'completed', output_text: 'hi' }),
      ],
    })
    expect(
      failing([
        streamed,
        call('GET', '/v1/responses/resp_1', { id: 'resp_1', status: 'completed', output_text: 'hi' }),
      ]),
    ).toEqual([])
    expect(
      failing([
        streamed,
        call('GET', '/v1/responses/resp_1', { id: 'resp_1', status: 'completed', output_text: 'bye' }),
      ]),
    ).toEqual([LEDGER_REQ.responseSame])
    expect(
      failing([
        call('POST', '/v1/responses', { id: 'resp_2', status: 'queued' }),
        call('GET', '/v1/responses/resp_2', { id: 'resp_2', status: 'completed', output_text: 'x' }),
      ]),
    ).toEqual([])
  })
})

describe('transactions (Part 1 §2.2)', () => {
  const tx = (over: Record<string, unknown>) => ({
    id: 'svc-call',
    created_at: '2026-01-01T00:00:01Z',
    requested_at: '2026-01-01T00:00:00Z',
    safety_identifier: null,
    model: 'm',
    provider: 'p',
    status_code: 200,
    stream: false,
    tokens: { total: 3 },
    ...over,
  })

  test('a transaction agrees with the call whose svc-request-id is its id', () => {
    const made = call('POST', '/v1/chat/completions', {}, { svcId: 'svc-call', status: 404 })
    expect(failing([made, call('GET', '/user/v1/transactions', { transactions: [tx({ status_code: 404 })] })])).toEqual(
      [],
    )
    expect(failing([made, call('GET', '/user/v1/transactions', { transactions: [tx({ status_code: 200 })] })])).toEqual(
      [LEDGER_REQ.transactionFields],
    )
    expect(
      failing([made, call('GET', '/user/v1/transactions', { transactions: [tx({ status_code: 404, stream: true })] })]),
    ).toEqual([LEDGER_REQ.transactionFields])
  })

  test('an id that several calls received names no one call: nothing to hold the transaction to', () => {
    const twice = [
      call('GET', '/v1/models', {}, { svcId: 'svc-call', status: 200 }),
      call('GET', '/v1/models/x', {}, { svcId: 'svc-call', status: 404 }),
    ]
    expect(
      failing([...twice, call('GET', '/user/v1/transactions', { transactions: [tx({ status_code: 200 })] })]),
    ).toEqual([])
  })

  test('the identifier a served call gave is the one recorded; requested_at is never after created_at', () => {
    const made = call(
      'POST',
      '/v1/responses',
      { id: 'resp_9', status: 'completed' },
      { svcId: 'svc-call', asked: { model: 'm', input: 'x', safety_identifier: 'gc-run-a' } },
    )
    expect(
      failing([made, call('GET', '/user/v1/transactions', { transactions: [tx({ safety_identifier: 'gc-run-a' })] })]),
    ).toEqual([])
    expect(
      failing([made, call('GET', '/user/v1/transactions', { transactions: [tx({ safety_identifier: null })] })]),
    ).toEqual([LEDGER_REQ.transactionFields])
    expect(
      failing([
        call('GET', '/v1/models', {}, { svcId: 'svc-other' }),
        call('GET', '/user/v1/transactions', {
          transactions: [tx({ id: 'svc-other', requested_at: '2026-01-01T00:00:02Z' })],
        }),
      ]),
    ).toEqual([LEDGER_REQ.transactionFields])
  })

  test("another client's transaction, whose id no call of the run received, is not judged", () => {
    expect(
      failing([
        call('GET', '/user/v1/transactions', {
          transactions: [tx({ id: 'svc-theirs', requested_at: '2026-01-01T00:00:02Z' })],
        }),
        call('GET', '/user/v1/transactions?page=2', { transactions: [tx({ id: 'svc-theirs', stream: true })] }),
      ]),
    ).toEqual([])
  })

  test('key order and members the reference does not name are no contradiction (§9.2)', () => {
    const mine = call('GET', '/v1/models', {}, { svcId: 'svc-x' })
    const reordered = {
      provider: 'p',
      model: 'm',
      tokens: { cached: 0, total: 3, extra_detail: 7 },
      stream: false,
      status_code: 200,
      safety_identifier: null,
      requested_at: '2026-01-01T00:00:00Z',
      created_at: '2026-01-01T00:00:01Z',
      id: 'svc-x',
    }
    expect(
      failing([
        mine,
        call('GET', '/user/v1/transactions', { transactions: [tx({ id: 'svc-x', tokens: { total: 3, cached: 0 } })] }),
        call('GET', '/user/v1/transactions?page=2', { transactions: [reordered] }),
      ]),
    ).toEqual([])
  })

  test('stream true is not judged for a call that asked for a stream; a transaction listed again keeps what its call fixed', () => {
    const streamed = call('POST', '/v1/responses', undefined, {
      svcId: 'svc-call',
      asked: { stream: true },
      contentType: 'text/event-stream',
      events: [],
    })
    expect(failing([streamed, call('GET', '/user/v1/transactions', { transactions: [tx({ stream: true })] })])).toEqual(
      [],
    )
    // stream_format audio: whether streamed audio counts as a stream is not shown, so only a call with no stream field is judged.
    const speech = call('POST', '/v1/audio/speech', undefined, {
      svcId: 'svc-speech',
      asked: { stream_format: 'audio' },
      contentType: 'audio/mpeg',
    })
    expect(
      failing([
        speech,
        call('GET', '/user/v1/transactions', { transactions: [tx({ id: 'svc-speech', stream: true })] }),
      ]),
    ).toEqual([])
    // Token counts, model, provider and created_at may be settled after a first listing: not compared.
    const mine = call('GET', '/v1/models', {}, { svcId: 'svc-call', status: 200 })
    expect(
      failing([
        mine,
        call('GET', '/user/v1/transactions?page=1', { transactions: [tx({})] }),
        call('GET', '/user/v1/transactions?page=2', {
          transactions: [
            tx({ tokens: { total: 4 }, model: 'm-2026', provider: 'p', created_at: '2026-09-01T10:00:09Z' }),
          ],
        }),
      ]),
    ).toEqual([])
    // What the words tie to the call stays: its status_code and stream flag.
    expect(
      failing([
        mine,
        call('GET', '/user/v1/transactions?page=1', { transactions: [tx({})] }),
        call('GET', '/user/v1/transactions?page=2', { transactions: [tx({ stream: true })] }),
      ]),
    ).toEqual([LEDGER_REQ.transactionFields])
    // requested_at is when the request started, a fact of the call: a later listing may not move it.
    expect(
      failing([
        mine,
        call('GET', '/user/v1/transactions?page=1', { transactions: [tx({})] }),
        call('GET', '/user/v1/transactions?page=2', {
          transactions: [tx({ requested_at: '2026-01-01T00:00:00.500Z' })],
        }),
      ]),
    ).toEqual([LEDGER_REQ.transactionFields])
  })
})

describe('echoes (Part 2 §2.6)', () => {
  const synth = (asked: unknown, audioConfig: unknown) =>
    call('POST', '/v1/text:synthesize', { audioContent: '', timepoints: [], audioConfig }, { asked })

  test('audioConfig echoes a listed encoding and rate on every answer', () => {
    expect(
      failing([
        synth(
          { audioConfig: { audioEncoding: 'LINEAR16', sampleRateHertz: 48000 } },
          { audioEncoding: 'LINEAR16', sampleRateHertz: 48000 },
        ),
      ]),
    ).toEqual([])
    expect(
      failing([
        synth(
          { audioConfig: { audioEncoding: 'LINEAR16', sampleRateHertz: 48000 } },
          { audioEncoding: 'LINEAR16', sampleRateHertz: 24000 },
        ),
      ]),
    ).toEqual([LEDGER_REQ.audioConfigEcho])
    expect(
      failing([
        synth({ audioConfig: { audioEncoding: 'MP3' } }, { audioEncoding: 'OGG_OPUS', sampleRateHertz: 24000 }),
      ]),
    ).toEqual([LEDGER_REQ.audioConfigEcho])
  })

  test("an encoding or rate outside §4.9 is another requirement's to judge", () => {
    expect(ledgerFindings([synth({ audioConfig: { audioEncoding: 'WAV' } }, { audioEncoding: 'LINEAR16' })])).toEqual(
      [],
    )
    expect(
      failing([
        synth(
          { audioConfig: { audioEncoding: 'LINEAR16', sampleRateHertz: 22050 } },
          { audioEncoding: 'LINEAR16', sampleRateHertz: 22050 },
        ),
      ]),
    ).toEqual([])
  })
})
