/** multipart/form-data bodies built as streams (harness/worker/multipart.ts), read back by undici's form-data parser. */
import { describe, expect, test } from 'vitest'
import { Response } from 'undici'
import { multipartBody, type MultipartBody } from '../../../harness/worker/multipart.ts'

async function collect(body: MultipartBody): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  for await (const chunk of body.chunks()) chunks.push(Uint8Array.from(chunk))
  return Buffer.concat(chunks)
}

async function parse(body: MultipartBody): Promise<FormData> {
  const bytes = await collect(body)
  expect(bytes.byteLength).toBe(body.length)
  return (await new Response(bytes, {
    headers: { 'content-type': body.headers['content-type'] },
  }).formData()) as unknown as FormData
}

describe('multipartBody', () => {
  test('fields then a file, read back with their names, filename, type and bytes', async () => {
    const body = multipartBody(
      [
        ['purpose', 'batch'],
        ['expires_after[anchor]', 'created_at'],
      ],
      { filename: 'in.jsonl', contentType: 'application/jsonl', content: '{"a":1}\n' },
    )
    const form = await parse(body)
    expect(form.get('purpose')).toBe('batch')
    expect(form.get('expires_after[anchor]')).toBe('created_at')
    const file = form.get('file') as File
    expect(file.name).toBe('in.jsonl')
    expect(file.type).toBe('application/jsonl')
    expect(await file.text()).toBe('{"a":1}\n')
    expect(body.fileBytes).toBe(8)
    expect(body.headers['content-length']).toBe(String(body.length))
    expect(body.note).toBe(
      'multipart: purpose=batch, expires_after[anchor]=created_at, file "in.jsonl" (8 bytes, application/jsonl)',
    )
  })

  test('a generated file has exactly the size asked, repeating the pattern across chunk edges', async () => {
    const size = 3 * 1000 + 7
    const body = multipartBody(
      [['purpose', 'user_data']],
      { filename: 'g.txt', content: { size, pattern: 'abc' } },
      { chunkBytes: 1000 },
    )
    const file = (await parse(body)).get('file') as File
    const text = await file.text()
    expect(text.length).toBe(size)
    expect(text).toBe('abc'.repeat(Math.ceil(size / 3)).slice(0, size))
  })

  test('bytes given as an array, a file part under another name, and no fields at all', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 255])
    const form = await parse(multipartBody([], { name: 'upload', filename: 'b.bin', content: bytes }))
    expect(new Uint8Array(await (form.get('upload') as File).arrayBuffer())).toEqual(bytes)
  })

  test('fields alone, with names that need quoting', async () => {
    const form = await parse(
      multipartBody([
        ['a"b', 'x'],
        ['purpose', 'vision'],
      ]),
    )
    expect(form.get('a"b')).toBe('x') // the parser undoes the percent-encoding, as browsers expect
    expect(form.get('purpose')).toBe('vision')
  })

  test('a large generated body streams in bounded chunks, and each call starts afresh', async () => {
    const size = 200 * 1000 * 1000
    const body = multipartBody([['purpose', 'user_data']], { filename: 'big.bin', content: { size } })
    expect(body.length).toBeGreaterThan(size)
    for (let round = 0; round < 2; round += 1) {
      let total = 0
      let largest = 0
      for await (const chunk of body.chunks()) {
        total += chunk.byteLength
        largest = Math.max(largest, chunk.byteLength)
      }
      expect(total).toBe(body.length)
      expect(body.produced()).toBe(body.length)
      expect(largest).toBeLessThanOrEqual(64 * 1024)
    }
  })

  test('content that contains the boundary is refused rather than sent corrupt', () => {
    expect(() => multipartBody([], { filename: 'x', content: '--b--' }, { boundary: 'b' })).toThrow(/boundary/)
    expect(() => multipartBody([['f', 'b']], undefined, { boundary: 'b' })).toThrow(/boundary/)
    // Bytes are searched as bytes, wherever they sit in a larger buffer.
    const bytes = Buffer.from('xx--gc-edge--yy', 'latin1')
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset + 2, 11)
    expect(() => multipartBody([], { filename: 'x', content: view }, { boundary: 'gc-edge' })).toThrow(/boundary/)
    const before = new Uint8Array(bytes.buffer, bytes.byteOffset, 6)
    expect(multipartBody([], { filename: 'x', content: before }, { boundary: 'gc-edge' }).fileBytes).toBe(6)
  })
})
