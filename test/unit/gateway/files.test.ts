/** The files endpoints (Part 1 sections 2.4, 4.4): upload, expiry, list, retrieve, download, delete, temp files. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EXPIRY_SECONDS } from '../../../gateway/files/upload.ts'
import { FILE_PURPOSES } from '../../../gateway/files/store.ts'
import type { GatewayConfig } from '../../../gateway/server.ts'
import { uploadTo } from './file-forms.ts'
import { manualClock, testGateway, type TestGateway } from './helpers.ts'

const opened: TestGateway[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((gw) => gw.app.close()))
})

/** A gateway on a hand-stepped clock, closed after the test so that its temporary folder goes too. */
function filesGateway(config: GatewayConfig = {}): TestGateway {
  const gw = testGateway({ clock: manualClock('2026-09-01T10:00:00Z'), ...config })
  opened.push(gw)
  return gw
}

describe('POST /v1/files (sections 2.4, 4.4)', () => {
  it('stores the file and answers the file object of section 2.4', async () => {
    const gw = filesGateway()
    const { status, body } = await uploadTo(gw, [['purpose', 'user_data']])
    expect(status).toBe(200)
    expect(body).toEqual({
      id: expect.stringMatching(/^file-[0-9a-f]{24}$/),
      object: 'file',
      bytes: 12,
      created_at: Date.parse('2026-09-01T10:00:00Z') / 1000,
      expires_at: null,
      filename: 'a.txt',
      purpose: 'user_data',
      status: null,
      status_details: null,
    })
  })

  it('accepts each of the seven purposes, in any order of the parts, and refuses others', async () => {
    const gw = filesGateway()
    for (const purpose of FILE_PURPOSES) expect((await uploadTo(gw, [['purpose', purpose]])).body.purpose).toBe(purpose)
    for (const purpose of ['fine_tune', 'Vision', '']) {
      const { status, body } = await uploadTo(gw, [['purpose', purpose]])
      expect(status).toBe(400)
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'purpose' })
    }
  })

  it('refuses a form without purpose or without a file, a second file field, and a body that is not multipart', async () => {
    const gw = filesGateway()
    expect((await uploadTo(gw, [])).body.error.param).toBe('purpose')
    expect((await uploadTo(gw, [['purpose', 'vision']], null)).body.error.param).toBe('file')
    expect(
      (await uploadTo(gw, [['purpose', 'vision']], { name: 'image', filename: 'x.png', content: 'x' })).status,
    ).toBe(400)
    expect(
      (
        await uploadTo(gw, [
          ['purpose', 'vision'],
          ['purpose', 'batch'],
        ])
      ).status,
    ).toBe(400)
    const json = await gw.call('/v1/files', { method: 'POST', body: { purpose: 'vision' } })
    expect(json.status).toBe(400)
    expect(json.body.error.param).toBe('file')
  })

  it('reads expires_after from bracketed fields or from one JSON field: expires_at = created_at + seconds', async () => {
    const gw = filesGateway()
    const created = Date.parse('2026-09-01T10:00:00Z') / 1000
    const brackets = await uploadTo(gw, [
      ['purpose', 'batch'],
      ['expires_after[anchor]', 'created_at'],
      ['expires_after[seconds]', '3600'],
    ])
    expect(brackets.body).toMatchObject({ created_at: created, expires_at: created + 3600 })
    const json = await uploadTo(gw, [
      ['purpose', 'batch'],
      ['expires_after', JSON.stringify({ anchor: 'created_at', seconds: 86_400 })],
    ])
    expect(json.body).toMatchObject({ expires_at: created + 86_400 })
  })

  it('refuses another anchor, a missing or non-integer seconds, and seconds outside its range (edges included)', async () => {
    const gw = filesGateway()
    const policy = (anchor: string | null, seconds: string | null): Array<[string, string]> => [
      ['purpose', 'user_data'],
      ...(anchor === null ? [] : [['expires_after[anchor]', anchor] as [string, string]]),
      ...(seconds === null ? [] : [['expires_after[seconds]', seconds] as [string, string]]),
    ]
    for (const [anchor, seconds] of [
      ['last_active_at', '3600'],
      [null, '3600'],
      ['created_at', null],
      ['created_at', '3600.5'],
      ['created_at', '-3600'],
      ['created_at', String(EXPIRY_SECONDS.min - 1)],
      ['created_at', String(EXPIRY_SECONDS.max + 1)],
    ] as const) {
      const { status, body } = await uploadTo(gw, policy(anchor, seconds))
      expect(status, `${anchor} ${seconds}`).toBe(400)
      expect(body.error.param).toMatch(/^expires_after\[(anchor|seconds)\]$/)
    }
    for (const seconds of [EXPIRY_SECONDS.min, EXPIRY_SECONDS.max])
      expect((await uploadTo(gw, policy('created_at', String(seconds)))).status).toBe(200)
    for (const json of ['tomorrow', '{}', '[]', JSON.stringify({ anchor: 'created_at', seconds: 3600.5 })]) {
      expect(
        (
          await uploadTo(gw, [
            ['purpose', 'user_data'],
            ['expires_after', json],
          ])
        ).status,
        json,
      ).toBe(400)
    }
  })

  it('refuses a purpose sent before the file without reading the file, and closes the connection', async () => {
    const gw = filesGateway()
    const { status, headers } = await uploadTo(gw, [['purpose', 'nope']], {
      filename: 'big.bin',
      content: { size: 5_000_000 },
    })
    expect(status).toBe(400)
    expect(headers.connection).toBe('close')
  })
})

describe('expiry and temporary files (sections 2.4, 4.4)', () => {
  it('keeps the bytes in a temporary folder, serves them, and removes them on delete', async () => {
    const gw = filesGateway()
    const { body: file } = await uploadTo(gw, [['purpose', 'vision']], {
      filename: 'p.png',
      contentType: 'image/png',
      content: 'not really a png',
    })
    const content = await gw.call(`/v1/files/${file.id}/content`)
    expect(content.status).toBe(200)
    expect(content.headers['content-type']).toBe('image/png')
    expect(content.headers['svc-request-id']).toBeDefined()
    expect(content.body).toBe('not really a png')
    const [path] = storedPaths(gw) as [string]
    expect(existsSync(path)).toBe(true)
    expect(dirname(dirname(path))).toMatch(new RegExp(`gateway-files-${process.pid}$`))
    const deleted = await gw.call(`/v1/files/${file.id}`, { method: 'DELETE' })
    expect(deleted.body).toEqual({ id: file.id, object: 'file', deleted: true })
    expect(existsSync(path)).toBe(false)
    expect((await gw.call(`/v1/files/${file.id}`)).status).toBe(404)
    expect((await gw.call(`/v1/files/${file.id}`, { method: 'DELETE' })).status).toBe(404)
    expect((await gw.call(`/v1/files/${file.id}/content`)).status).toBe(404)
  })

  it('forgets an expired file and removes its bytes', async () => {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const gw = filesGateway({ clock })
    const { body: file } = await uploadTo(gw, [
      ['purpose', 'user_data'],
      ['expires_after[anchor]', 'created_at'],
      ['expires_after[seconds]', '3600'],
    ])
    const [path] = storedPaths(gw)
    clock.advance(3_599_000)
    expect((await gw.call(`/v1/files/${file.id}`)).status).toBe(200)
    clock.advance(1_000)
    expect((await gw.call(`/v1/files/${file.id}`)).status).toBe(404)
    expect((await gw.call('/v1/files')).body.data).toEqual([])
    await gw.state.files.sweep()
    expect(existsSync(path as string)).toBe(false)
  })

  it('removes its folder when the gateway closes', async () => {
    const gw = filesGateway()
    await uploadTo(gw, [['purpose', 'others']])
    const [path] = storedPaths(gw)
    const folder = dirname(path as string)
    expect(readdirSync(folder)).toHaveLength(1)
    await gw.app.close()
    expect(existsSync(folder)).toBe(false)
  })

  it('removes the folders that gateways of processes no longer running left behind', async () => {
    // Above the largest pid Linux hands out (4194304), so no process can have it.
    const abandoned = join(tmpdir(), 'gateway-files-4194305')
    mkdirSync(join(abandoned, 'g-old'), { recursive: true })
    writeFileSync(join(abandoned, 'g-old', 'bytes'), 'left behind')
    await uploadTo(filesGateway(), [['purpose', 'others']])
    expect(existsSync(abandoned)).toBe(false)
  })

  it("keeps accounts apart: another account's file is not found", async () => {
    const gw = filesGateway()
    const { body: file } = await uploadTo(gw, [['purpose', 'others']], undefined, { key: 'tier3' })
    expect((await gw.call(`/v1/files/${file.id}`)).status).toBe(404)
    expect((await gw.call('/v1/files')).body.data).toEqual([])
    expect((await gw.call(`/v1/files/${file.id}`, { key: 'tier3' })).status).toBe(200)
  })
})

describe('GET /v1/files (section 4.4)', () => {
  async function threeFiles(): Promise<{ gw: TestGateway; ids: string[] }> {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const gw = filesGateway({ clock })
    const ids: string[] = []
    for (const purpose of ['batch', 'vision', 'batch']) {
      ids.push((await uploadTo(gw, [['purpose', purpose]])).body.id)
      clock.advance(1_000)
    }
    return { gw, ids }
  }

  it('lists newest first by default, oldest first with order=asc, in the envelope of section 2.4', async () => {
    const { gw, ids } = await threeFiles()
    const byDefault = await gw.call('/v1/files')
    expect(byDefault.body).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[0], has_more: false })
    expect(byDefault.body.data.map((f: { id: string }) => f.id)).toEqual([...ids].reverse())
    expect((await gw.call('/v1/files?order=asc')).body.data.map((f: { id: string }) => f.id)).toEqual(ids)
    expect((await gw.call('/v1/files?order=desc')).body.data.map((f: { id: string }) => f.id)).toEqual(
      [...ids].reverse(),
    )
  })

  it('pages with limit and after in both orders, has_more true until the last page', async () => {
    const { gw, ids } = await threeFiles()
    const first = await gw.call('/v1/files?order=asc&limit=2')
    expect(first.body).toMatchObject({ first_id: ids[0], last_id: ids[1], has_more: true })
    const second = await gw.call(`/v1/files?order=asc&limit=2&after=${ids[1]}`)
    expect(second.body).toMatchObject({ first_id: ids[2], last_id: ids[2], has_more: false })
    const desc = await gw.call(`/v1/files?limit=1&after=${ids[2]}`)
    expect(desc.body).toMatchObject({ first_id: ids[1], has_more: true })
    const empty = await gw.call(`/v1/files?after=${ids[0]}`)
    expect(empty.body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false })
  })

  it('filters by purpose', async () => {
    const { gw, ids } = await threeFiles()
    expect((await gw.call('/v1/files?purpose=vision')).body.data.map((f: { id: string }) => f.id)).toEqual([ids[1]])
    expect((await gw.call('/v1/files?purpose=nothing')).body.data).toEqual([])
  })

  it('refuses limit outside 1..10000 (edges accepted), another order, and an after that names no file', async () => {
    const { gw } = await threeFiles()
    for (const limit of ['1', '10000']) expect((await gw.call(`/v1/files?limit=${limit}`)).status).toBe(200)
    for (const query of [
      'limit=0',
      'limit=10001',
      'limit=1.5',
      'limit=',
      'order=ascending',
      'order=ASC',
      'after=file-000',
      'limit=1&limit=2',
    ]) {
      const { status, body } = await gw.call(`/v1/files?${query}`)
      expect(status, query).toBe(400)
      expect(body.error.type).toBe('invalid_request_error')
    }
  })
})

/** Where the main account's files keep their bytes, read through the store. */
function storedPaths(gw: TestGateway): string[] {
  return gw.state.files.list(gw.state.accounts.main().id).map((file) => file.path)
}

describe('choices the reference leaves open (variations.ts)', () => {
  const bytes = (size: number) => ({ filename: 'b.bin', contentType: 'application/octet-stream', content: { size } })

  it('opaque-file-ids: an id never issued is a 400, an issued and deleted one a 404', async () => {
    const gw = filesGateway({ variations: ['opaque-file-ids'] })
    expect((await gw.call('/v1/files/file-never-issued')).status).toBe(400)
    const { body } = await uploadTo(gw, [['purpose', 'user_data']])
    expect((await gw.call(`/v1/files/${body.id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await gw.call(`/v1/files/${body.id}`)).status).toBe(404)
  })

  it('expires-json-part: the bracketed fields are refused, the JSON part is taken', async () => {
    const gw = filesGateway({ variations: ['expires-json-part'] })
    const brackets = await uploadTo(gw, [
      ['purpose', 'user_data'],
      ['expires_after[anchor]', 'created_at'],
      ['expires_after[seconds]', '3600'],
    ])
    expect(brackets.status).toBe(400)
    const json = await uploadTo(gw, [
      ['purpose', 'user_data'],
      ['expires_after', JSON.stringify({ anchor: 'created_at', seconds: 3600 })],
    ])
    expect(json.status).toBe(200)
  })

  it('no-assistants-files: purpose assistants is refused, the others taken', async () => {
    const gw = filesGateway({ variations: ['no-assistants-files'] })
    expect((await uploadTo(gw, [['purpose', 'assistants']])).status).toBe(400)
    expect((await uploadTo(gw, [['purpose', 'user_data']])).status).toBe(200)
  })

  it('binary-megabytes: the upload limit is read as MiB', async () => {
    // 1000 decimal "MB-bytes" read as MiB: 1049 bytes.
    const gw = filesGateway({ variations: ['binary-megabytes'], files: { maxUploadBytes: 1_000 } })
    expect((await uploadTo(gw, [['purpose', 'user_data']], bytes(1_049))).status).toBe(200)
    expect((await uploadTo(gw, [['purpose', 'user_data']], bytes(1_050))).status).toBe(400)
    const plain = filesGateway({ files: { maxUploadBytes: 1_000 } })
    expect((await uploadTo(plain, [['purpose', 'user_data']], bytes(1_001))).status).toBe(400)
  })

  it('faults: unknown-file-500 fails only ids never issued; expires-anchor-optional takes a policy without anchor', async () => {
    const gw = filesGateway({ faults: ['unknown-file-500', 'expires-anchor-optional'] })
    expect((await gw.call('/v1/files/file-never-issued')).status).toBe(500)
    const { body } = await uploadTo(gw, [
      ['purpose', 'user_data'],
      ['expires_after[seconds]', '3600'],
    ])
    expect(body.expires_at).toBe(body.created_at + 3600)
    await gw.call(`/v1/files/${body.id}`, { method: 'DELETE' })
    expect((await gw.call(`/v1/files/${body.id}`)).status).toBe(404)
  })
})
