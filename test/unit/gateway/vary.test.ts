/** The allowed-variation transforms (Part 1 §9.2), and the headers and latency that --vary changes. */
import { describe, expect, test } from 'vitest'
import { SEEDED_KEYS } from '../../../gateway/account/accounts.ts'
import { createGateway } from '../../../gateway/server.ts'
import { collectSse } from '../../../harness/worker/sse.ts'
import {
  awkwardPieces,
  lineEnds,
  unvaryId,
  unvaryJson,
  unvaryUrl,
  VARY_PROPERTY,
  varyJson,
  varyJsonText,
} from '../../../gateway/vary.ts'

describe('varyJson', () => {
  test('every object gets an unknown property and reversed keys; arrays keep their order', () => {
    const varied = varyJson({ a: 1, b: { c: [{ d: 2 }, 3] } }) as Record<string, unknown>
    expect(Object.keys(varied)).toEqual([VARY_PROPERTY, 'b', 'a'])
    const b = varied.b as Record<string, unknown>
    expect(Object.keys(b)).toEqual([VARY_PROPERTY, 'c'])
    expect((b.c as unknown[])[1]).toBe(3)
    expect(Object.keys((b.c as Array<Record<string, unknown>>)[0] as object)).toEqual([VARY_PROPERTY, 'd'])
  })

  test('maps and echoed documents are left alone', () => {
    const varied = varyJson({ extra: { rate_limits: { tiers: { '0': { rpm: 1 } } } }, metadata: { k: 'v' } }) as {
      extra: { rate_limits: { tiers: unknown } }
      metadata: unknown
    }
    expect(varied.extra.rate_limits.tiers).toEqual({ '0': { rpm: 1 } })
    expect(varied.metadata).toEqual({ k: 'v' })
  })

  test('text that is not JSON is unchanged', () => {
    expect(varyJsonText('[DONE]')).toBe('[DONE]')
    expect(JSON.parse(varyJsonText('{"x":1}'))).toHaveProperty(VARY_PROPERTY)
  })
})

describe('opaque ids in another format', () => {
  test('ids under id-like keys change shape and come back unchanged; UUIDs and other strings do not change', () => {
    const varied = varyJson({
      id: 'file-0bac1e5d14fad02114bc7e7d',
      first_id: 'resp_00ff00ff00ff00ff00ff00ff00ff00ff',
      request_id: '01a1fd9d-e56d-752c-ade9-8a686a7b12f7',
      name: 'file-0bac1e5d14fad02114bc7e7d',
    }) as Record<string, string>
    expect(varied.id).toMatch(/^gcv2\.file\.-\./)
    expect(varied.request_id).toBe('01a1fd9d-e56d-752c-ade9-8a686a7b12f7')
    expect(varied.name).toBe('file-0bac1e5d14fad02114bc7e7d')
    expect(unvaryId(varied.id as string)).toBe('file-0bac1e5d14fad02114bc7e7d')
    expect(unvaryUrl(`/v1/files/${varied.id}?after=${varied.first_id}`)).toBe(
      '/v1/files/file-0bac1e5d14fad02114bc7e7d?after=resp_00ff00ff00ff00ff00ff00ff00ff00ff',
    )
    expect(unvaryJson({ previous_response_id: varied.first_id, input: ['x'] })).toEqual({
      previous_response_id: 'resp_00ff00ff00ff00ff00ff00ff00ff00ff',
      input: ['x'],
    })
  })
})

describe('stream variation', () => {
  test('CRLF and CR-only line ends by turns, and awkward cuts that join back to the same text', () => {
    expect(lineEnds('event: a\ndata: 1\n\n', 0)).toBe('event: a\r\ndata: 1\r\n\r\n')
    expect(lineEnds('event: a\ndata: 1\n\n', 1)).toBe('event: a\rdata: 1\r\r')
    const text = lineEnds('event: a\ndata: {"x":1}\n\n', 0)
    const pieces = awkwardPieces(text)
    expect(pieces.length).toBeGreaterThan(2)
    expect(pieces.join('')).toBe(text)
  })

  // Every streamed route but transcription (multipart; the --vary conformance run covers it): a BOM, a comment and
  // retry: first, id: fields, CR-only line ends, and an unknown event and ": ping" after the terminal event.
  const STREAMED: Array<[string, string, Record<string, unknown>, Record<string, string>?]> = [
    ['responses', '/v1/responses', { model: 'gw-chat-mini', input: 'Hi', stream: true, max_output_tokens: 8 }],
    [
      'chat',
      '/v1/chat/completions',
      { model: 'gw-chat-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true, max_completion_tokens: 8 },
    ],
    ['completions', '/v1/completions', { model: 'gw-complete-1', prompt: 'Hi', max_tokens: 4, stream: true }],
    [
      'speech',
      '/v1/audio/speech',
      { model: 'gw-speech-1', input: 'Hello.', voice: 'alloy', response_format: 'wav', stream_format: 'sse' },
    ],
    [
      'native',
      '/v1beta/models/nv-gen-flash:streamGenerateContent?alt=sse',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    ],
  ]

  test.each(STREAMED)(
    "%s: the framing the SSE format allows, read whole by the suite's reader",
    async (_name, url, payload) => {
      const { app } = createGateway({ vary: true, varyLatencyMs: 0, minuteMs: 60_000 })
      try {
        const response = await app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${SEEDED_KEYS.tier2}` },
          payload,
        })
        expect(response.statusCode, response.body).toBe(200)
        const bytes = response.rawPayload
        expect(bytes.subarray(0, 3).toString('hex')).toBe('efbbbf')
        const text = bytes.toString('utf8')
        expect(text).toMatch(/^\uFEFF: [^\r\n]*\r\nretry: 3000\r\n\r\n/)
        expect(text).toMatch(/\rid: \d+\r/)
        expect(text).toMatch(/[^\n]\r\r/)
        expect(text).toMatch(/event: gc\.unknown_event\r?\n?data: [^\r\n]+\r\n?\r\n?: ping\r\n?\r\n?$/)
        const { items, events, end } = await collectSse(
          (async function* () {
            yield bytes
          })(),
        )
        expect(end.cleanEnd).toBe(true)
        expect(items.at(-1)).toEqual({ kind: 'comment', text: 'ping' })
        expect(events.at(-1)?.event).toBe('gc.unknown_event')
        expect(items.some((i) => i.kind === 'retry' && i.ms === 3000)).toBe(true)
      } finally {
        await app.close()
      }
    },
  )
})

describe('header variation and latency (§4.1, §7, §9.4)', () => {
  test('past 2026-10-15 an unrelated x-request-id appears; a 429 has no Retry-After; every call waits the latency', async () => {
    const { app } = createGateway({ vary: true, varyLatencyMs: 120, now: '2026-11-21T12:00:00Z', minuteMs: 60_000 })
    try {
      const started = performance.now()
      const ok = await app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${SEEDED_KEYS.tier0}` },
      })
      expect(performance.now() - started).toBeGreaterThanOrEqual(115)
      expect(ok.statusCode).toBe(200)
      expect(ok.headers['x-request-id']).toMatch(/^gc-proxy-[0-9a-f]{16}$/)
      expect(ok.headers['x-request-id']).not.toBe(ok.headers['svc-request-id'])
      // Tier 0's usage limit is small: spend it, then the 429 comes without Retry-After but with the reset header.
      const calls = await Promise.all(
        Array.from({ length: 40 }, () =>
          app.inject({
            method: 'GET',
            url: '/user/v1/credit',
            headers: { authorization: `Bearer ${SEEDED_KEYS.tier0}` },
          }),
        ),
      )
      const refused = calls.filter((c) => c.statusCode === 429)
      expect(refused.length).toBeGreaterThan(0)
      for (const c of refused) {
        expect(c.headers['retry-after']).toBeUndefined()
        expect(c.headers['x-ratelimit-reset-requests']).toBeDefined()
      }
    } finally {
      await app.close()
    }
  })

  test("inside the migration window x-request-id stays the service's own, equal to svc-request-id", async () => {
    const { app } = createGateway({ vary: true, varyLatencyMs: 0, now: '2026-09-01T12:00:00Z' })
    try {
      const ok = await app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${SEEDED_KEYS.main}` },
      })
      expect(ok.headers['x-request-id']).toBe(ok.headers['svc-request-id'])
    } finally {
      await app.close()
    }
  })
})
