/** The allowed-variation transforms (Part 1 §9.2). */
import { describe, expect, test } from 'vitest'
import { awkwardPieces, crlf, unvaryId, unvaryJson, unvaryUrl, VARY_PROPERTY, varyJson, varyJsonText } from '../../gateway/vary.ts'

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
    const varied = varyJson({ extra: { rate_limits: { tiers: { '0': { rpm: 1 } } } }, metadata: { k: 'v' } }) as { extra: { rate_limits: { tiers: unknown } }; metadata: unknown }
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
    const varied = varyJson({ id: 'file-0bac1e5d14fad02114bc7e7d', first_id: 'resp_00ff00ff00ff00ff00ff00ff00ff00ff', request_id: '01a1fd9d-e56d-752c-ade9-8a686a7b12f7', name: 'file-0bac1e5d14fad02114bc7e7d' }) as Record<string, string>
    expect(varied.id).toMatch(/^gcv2\.file\.-\./)
    expect(varied.request_id).toBe('01a1fd9d-e56d-752c-ade9-8a686a7b12f7')
    expect(varied.name).toBe('file-0bac1e5d14fad02114bc7e7d')
    expect(unvaryId(varied.id as string)).toBe('file-0bac1e5d14fad02114bc7e7d')
    expect(unvaryUrl(`/v1/files/${varied.id}?after=${varied.first_id}`)).toBe('/v1/files/file-0bac1e5d14fad02114bc7e7d?after=resp_00ff00ff00ff00ff00ff00ff00ff00ff')
    expect(unvaryJson({ previous_response_id: varied.first_id, input: ['x'] })).toEqual({ previous_response_id: 'resp_00ff00ff00ff00ff00ff00ff00ff00ff', input: ['x'] })
  })
})

describe('stream variation', () => {
  test('CRLF line ends and awkward cuts that join back to the same text', () => {
    expect(crlf('event: a\ndata: 1\n\n')).toBe('event: a\r\ndata: 1\r\n\r\n')
    const text = crlf('event: a\ndata: {"x":1}\n\n')
    const pieces = awkwardPieces(text)
    expect(pieces.length).toBeGreaterThan(2)
    expect(pieces.join('')).toBe(text)
  })
})
