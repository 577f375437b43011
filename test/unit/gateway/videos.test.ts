/** The videos endpoints (Part 2 sections 2.1, 3, 4.1, 7, 8): schedule, cost, create rules, list, content, remix. */
import { afterEach, describe, expect, it } from 'vitest'
import { parseCommandLine, resolveOptions } from '../../../gateway/options.ts'
import { OptionError } from '../../../gateway/errors.ts'
import { CANNOT_START_MARKER } from '../../../gateway/videos/routes.ts'
import { codedSize, makeMp4 } from '../../../gateway/videos/mp4.ts'
import { imageType } from '../../../gateway/videos/request.ts'
import { DEFAULT_VIDEO_STEP_MS } from '../../../gateway/videos/store.ts'
import { REAL_NAMES } from '../../../gateway/variations.ts'
import type { FilePart } from '../../../harness/worker/multipart.ts'
import { form } from './file-forms.ts'
import { KEYS, manualClock, testGateway, UUID_V7, type CallOptions, type TestGateway } from './helpers.ts'

const STEP_MS = 1_000
const opened: TestGateway[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((gw) => gw.app.close()))
})

function videosGateway(): TestGateway & { clock: ReturnType<typeof manualClock> } {
  const clock = manualClock('2026-09-01T10:00:00Z')
  const gw = testGateway({ clock, videoStepMs: STEP_MS })
  opened.push(gw)
  return Object.assign(gw, { clock })
}

function create(gw: TestGateway, body: Record<string, unknown>, options: CallOptions = {}) {
  return gw.call('/v1/videos', { ...options, method: 'POST', body: { model: 'vidA-2', prompt: 'a boat', ...body } })
}

async function createMultipart(gw: TestGateway, fields: Array<[string, string]>, file: FilePart | null) {
  const { payload, headers } = await form([['model', 'vidA-2'], ['prompt', 'a boat'], ...fields], file ?? null)
  return gw.call('/v1/videos', { method: 'POST', body: payload, headers })
}

async function remainingUsd(gw: TestGateway, key: CallOptions['key'] = 'main'): Promise<number> {
  return (await gw.call('/user/v1/credit', { key })).body.remaining_unit
}

/** Top-level ISO BMFF boxes: type and size. */
function boxes(bytes: Buffer): Array<[string, number]> {
  const out: Array<[string, number]> = []
  for (let at = 0; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32BE(at)
    out.push([bytes.toString('latin1', at + 4, at + 8), size])
    if (size < 8) break
    at += size
  }
  return out
}

describe('the schedule and the job (sections 2.1, 3)', () => {
  it('moves queued -> processing -> completed one step apart, then stays completed; request_id is the svc-request-id', async () => {
    const gw = videosGateway()
    const made = await create(gw, { safety_identifier: 'sid-1' })
    expect(made.status).toBe(200)
    expect(made.body).toMatchObject({
      object: 'video',
      model: 'vidA-2',
      status: 'queued',
      seconds: '4',
      size: '720x1280',
      safety_identifier: 'sid-1',
      error: null,
    })
    expect(made.body.id).toMatch(/^video_[0-9a-f]{24}$/)
    expect(made.body.request_id).toBe(made.id)
    expect(made.id).toMatch(UUID_V7)
    const statusAt = async () => (await gw.call(`/v1/videos/${made.body.id}`)).body.status
    gw.clock.advance(STEP_MS - 1)
    expect(await statusAt()).toBe('queued')
    gw.clock.advance(1)
    expect(await statusAt()).toBe('processing')
    gw.clock.advance(STEP_MS)
    expect(await statusAt()).toBe('completed')
    gw.clock.advance(100 * STEP_MS)
    const later = await gw.call(`/v1/videos/${made.body.id}`)
    expect(later.body).toMatchObject({ status: 'completed', progress: 100, request_id: made.id })
  })

  it('a prompt with the cannot-start marker makes a job failed from creation that costs nothing; a started job is charged', async () => {
    const gw = videosGateway()
    const start = await remainingUsd(gw)
    const failed = await create(gw, { prompt: `x ${CANNOT_START_MARKER}`, seconds: '12' })
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'video_not_started' } })
    expect(await remainingUsd(gw)).toBe(start)
    gw.clock.advance(10 * STEP_MS)
    expect((await gw.call(`/v1/videos/${failed.body.id}`)).body.status).toBe('failed')
    await create(gw, { seconds: '8' }) // vidA-2: 0.1 USD a second
    expect(await remainingUsd(gw)).toBeCloseTo(start - 0.8, 6)
  })

  it('defaults to a quick step, and --video-step-ms is validated with a one-line error', () => {
    expect(DEFAULT_VIDEO_STEP_MS).toBeLessThanOrEqual(500)
    expect(resolveOptions({}, { port: 0 }).videoStepMs).toBeUndefined()
    expect(resolveOptions({ videoStepMs: 40 }, { port: 0 }).videoStepMs).toBe(40)
    expect(() => resolveOptions({ videoStepMs: 0 }, { port: 0 })).toThrow(OptionError)
    expect(() => parseCommandLine(['--video-step-ms', '1.5'])).toThrow(/--video-step-ms must be a non-negative integer/)
    expect(() => parseCommandLine(['--video-step-ms', '0'])).toThrow(
      /--video-step-ms must be a positive integer number of milliseconds/,
    )
    const command = parseCommandLine(['--video-step-ms', '20'])
    expect(command.kind === 'serve' && command.options.videoStepMs).toBe(20)
  })
})

describe('create rules (sections 4.1, 7, 8)', () => {
  it('takes the eight models and refuses others, a missing model or prompt', async () => {
    const gw = videosGateway()
    for (const model of [
      'vidA-2',
      'vidA-2-pro',
      'gen4.5',
      'gen4_turbo',
      'vidB-3.1-generate-001',
      'vidB-3.1-fast-generate-001',
      'vidB-3.1-generate-preview',
      'vidB-3.1-fast-generate-preview',
    ]) {
      expect((await create(gw, { model })).status, model).toBe(200)
    }
    expect((await create(gw, { model: 'gw-chat' })).body.error.param).toBe('model')
    expect((await create(gw, { model: undefined })).status).toBe(400)
    expect((await create(gw, { prompt: undefined })).body.error.param).toBe('prompt')
  })

  it('checks seconds (a string; 4, 8, 12 for vidA; 4, 8 elsewhere) and sizes per model', async () => {
    const gw = videosGateway()
    for (const seconds of ['4', '8', '12'])
      expect((await create(gw, { model: 'vidA-2-pro', seconds })).status).toBe(200)
    for (const seconds of ['0', '5', '16', '04', 8])
      expect((await create(gw, { seconds })).body.error.param, String(seconds)).toBe('seconds')
    expect((await create(gw, { model: 'gen4.5', seconds: '8' })).status).toBe(200)
    expect((await create(gw, { model: 'gen4.5', seconds: '12' })).status).toBe(400)
    expect((await create(gw, { model: 'vidA-2', size: '1280x720' })).status).toBe(200)
    expect((await create(gw, { model: 'vidA-2', size: '1024x1792' })).body.error.param).toBe('size')
    expect((await create(gw, { model: 'vidA-2-pro', size: '1792x1024' })).status).toBe(200)
    expect((await create(gw, { model: 'vidB-3.1-generate-preview', size: '1920x1080' })).status).toBe(200)
    expect((await create(gw, { model: 'vidB-3.1-generate-preview', size: '1792x1024' })).status).toBe(400)
    for (const size of ['720X1280', '720x1280 ', 'x', '']) expect((await create(gw, { size })).status, size).toBe(400)
  })

  it('limits prompt to 1000 and safety_identifier to 256 characters', async () => {
    const gw = videosGateway()
    expect((await create(gw, { prompt: 'p'.repeat(1000) })).status).toBe(200)
    expect((await create(gw, { prompt: 'p'.repeat(1001) })).body.error.param).toBe('prompt')
    expect((await create(gw, { safety_identifier: 's'.repeat(256) })).status).toBe(200)
    expect((await create(gw, { safety_identifier: 's'.repeat(257) })).body.error.param).toBe('safety_identifier')
  })

  it('takes input_reference by multipart, by its signature: JPEG, PNG, WebP yes; GIF, text, or JSON no', async () => {
    const gw = videosGateway()
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    expect(
      (
        await createMultipart(gw, [['seconds', '8']], {
          name: 'input_reference',
          filename: 'r.png',
          contentType: 'image/png',
          content: png,
        })
      ).body,
    ).toMatchObject({ status: 'queued', seconds: '8' })
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')
    const refused = await createMultipart(gw, [], {
      name: 'input_reference',
      filename: 'r.png',
      contentType: 'image/png',
      content: gif,
    })
    expect(refused.body.error.param).toBe('input_reference')
    expect(
      (await createMultipart(gw, [], { name: 'image', filename: 'r.png', contentType: 'image/png', content: png }))
        .status,
    ).toBe(400)
    expect((await create(gw, { input_reference: 'data:image/png;base64,AAAA' })).body.error.param).toBe(
      'input_reference',
    )
    expect(imageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg')
    expect(imageType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8L', 'latin1'))).toBe('image/webp')
  })
})

describe('list, retrieve, delete, content, remix (section 4.1)', () => {
  it("lists newest first, filters by safety_identifier and request_id, and hides other accounts' jobs", async () => {
    const gw = videosGateway()
    const a = await create(gw, { safety_identifier: 'x' })
    const b = await create(gw, { safety_identifier: 'x' })
    const c = await create(gw, { safety_identifier: 'y' })
    expect((await gw.call('/v1/videos')).body.data.map((j: { id: string }) => j.id)).toEqual([
      c.body.id,
      b.body.id,
      a.body.id,
    ])
    expect((await gw.call('/v1/videos?safety_identifier=x')).body.data.map((j: { id: string }) => j.id)).toEqual([
      b.body.id,
      a.body.id,
    ])
    expect((await gw.call(`/v1/videos?request_id=${a.id}`)).body.data.map((j: { id: string }) => j.id)).toEqual([
      a.body.id,
    ])
    expect((await gw.call('/v1/videos', { key: 'tier4' })).body.data).toEqual([])
    expect((await gw.call(`/v1/videos/${a.body.id}`, { key: 'tier4' })).status).toBe(404)
  })

  it("serves content only when completed: a real MP4 of the job's seconds; a 400 before, 404 after delete", async () => {
    const gw = videosGateway()
    const made = await create(gw, { seconds: '8', size: '1280x720' })
    const early = await gw.call(`/v1/videos/${made.body.id}/content`)
    expect(early.status).toBe(400)
    expect(early.body.error.code).toBe('video_not_ready')
    gw.clock.advance(2 * STEP_MS)
    const content = await gw.app.inject({
      url: `/v1/videos/${made.body.id}/content`,
      headers: { authorization: `Bearer ${KEYS.main}` },
    })
    expect(content.statusCode).toBe(200)
    expect(content.headers['content-type']).toBe('video/mp4')
    expect(content.headers['svc-request-id']).toMatch(UUID_V7)
    const bytes = content.rawPayload
    expect(boxes(bytes).map(([type]) => type)).toEqual(['ftyp', 'moov', 'mdat'])
    expect(boxes(bytes).reduce((sum, [, size]) => sum + size, 0)).toBe(bytes.length)
    expect(bytes.toString('latin1', 8, 12)).toBe('isom')
    const deleted = await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })
    expect(deleted.body).toEqual({ id: made.body.id, object: 'video.deleted', deleted: true })
    expect((await gw.call(`/v1/videos/${made.body.id}`)).status).toBe(404)
    expect((await gw.call(`/v1/videos/${made.body.id}/content`)).status).toBe(404)
    expect((await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })).status).toBe(404)
  })

  it("remixes only a completed job, into a new charged job with the source's model, seconds and size", async () => {
    const gw = videosGateway()
    const source = await create(gw, { model: 'vidA-2-pro', seconds: '8', size: '1792x1024', safety_identifier: 's' })
    expect(
      (await gw.call(`/v1/videos/${source.body.id}/remix`, { method: 'POST', body: { prompt: 'again' } })).status,
    ).toBe(400)
    gw.clock.advance(2 * STEP_MS)
    const before = await remainingUsd(gw)
    const remix = await gw.call(`/v1/videos/${source.body.id}/remix`, { method: 'POST', body: { prompt: 'again' } })
    expect(remix.body).toMatchObject({
      model: 'vidA-2-pro',
      seconds: '8',
      size: '1792x1024',
      status: 'queued',
      remixed_from_video_id: source.body.id,
      safety_identifier: 's',
      request_id: remix.id,
    })
    expect(remix.body.id).not.toBe(source.body.id)
    expect(await remainingUsd(gw)).toBeCloseTo(before - 8 * 0.3, 6)
    expect((await gw.call(`/v1/videos/${source.body.id}/remix`, { method: 'POST', body: {} })).body.error.param).toBe(
      'prompt',
    )
  })
})

describe('the real choices (videos/variations.ts)', () => {
  function varied(variations: string[]): TestGateway & { clock: ReturnType<typeof manualClock> } {
    const clock = manualClock('2026-09-01T10:00:00Z')
    const gw = testGateway({ clock, videoStepMs: STEP_MS, variations })
    opened.push(gw)
    return Object.assign(gw, { clock })
  }

  it('video-in-progress: a running job says in_progress; its content is still withheld', async () => {
    const gw = varied(['video-in-progress'])
    const made = await create(gw, {})
    gw.clock.advance(STEP_MS)
    const running = await gw.call(`/v1/videos/${made.body.id}`)
    expect(running.body.status).toBe('in_progress')
    expect((await gw.call('/v1/videos')).body.data[0].status).toBe('in_progress')
    expect((await gw.call(`/v1/videos/${made.body.id}/content`)).status).toBe(400)
  })

  it('video-content-redirect: a completed job is downloaded by redirect to another origin that needs no key', async () => {
    const gw = varied(['video-content-redirect'])
    const made = await create(gw, {})
    gw.clock.advance(2 * STEP_MS)
    const content = await gw.call(`/v1/videos/${made.body.id}/content`)
    expect(content.status).toBe(302)
    const location = new URL(String(content.headers.location))
    expect(location.port).not.toBe('') // a storage host of its own, not the service's origin
    const file = await fetch(location)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('video/mp4')
    expect(file.headers.get('svc-request-id')).toBeNull()
    expect(boxes(Buffer.from(await file.arrayBuffer())).map(([type]) => type)).toEqual(['ftyp', 'moov', 'mdat'])
    await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })
    expect((await fetch(location)).status).toBe(404)
  })

  it('video-content-pending-text: content of a running job is a 202 plain-text message; of a failed one, an error', async () => {
    const gw = varied(['video-content-pending-text'])
    const made = await create(gw, {})
    const running = await gw.call(`/v1/videos/${made.body.id}/content`)
    expect(running.status).toBe(202)
    expect(running.headers['content-type']).toMatch(/^text\/plain/)
    const failed = await create(gw, { prompt: `a boat ${CANNOT_START_MARKER}` })
    expect((await gw.call(`/v1/videos/${failed.body.id}/content`)).status).toBe(400)
  })

  it('video-content-redirect-own: a completed job is downloaded by redirect to a path of its own, with the key', async () => {
    const gw = varied(['video-content-redirect-own'])
    const made = await create(gw, {})
    gw.clock.advance(2 * STEP_MS)
    const content = await gw.call(`/v1/videos/${made.body.id}/content`)
    expect(content.status).toBe(302)
    const location = String(content.headers.location)
    expect(location).toBe(`/v1/videos/${made.body.id}/download`)
    expect((await gw.call(location)).headers['content-type']).toBe('video/mp4')
    expect((await gw.call(location, { key: null })).status).toBe(401)
  })

  it('video-create-202: create and remix answer 202 with the job', async () => {
    const gw = varied(['video-create-202'])
    const made = await create(gw, {})
    expect(made.status).toBe(202)
    expect(made.body.status).toBe('queued')
    gw.clock.advance(2 * STEP_MS)
    const remix = await gw.call(`/v1/videos/${made.body.id}/remix`, { method: 'POST', body: { prompt: 'again' } })
    expect(remix.status).toBe(202)
  })

  it('video-eventual: a new job is listed a moment late, and a delete answers 202 and is done a moment later', async () => {
    const gw = varied(['video-eventual'])
    const made = await create(gw, {})
    expect((await gw.call('/v1/videos')).body.data).toEqual([])
    gw.clock.advance(1_000)
    expect((await gw.call('/v1/videos')).body.data.map((job: { id: string }) => job.id)).toEqual([made.body.id])
    const deleted = await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(202)
    expect((await gw.call(`/v1/videos/${made.body.id}`)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect((await gw.call(`/v1/videos/${made.body.id}`)).status).toBe(404)
  })

  it('video-content-not-ready-404, video-id-checked, video-create-201: other allowed answers', async () => {
    const gw = varied(['video-content-not-ready-404', 'video-id-checked', 'video-create-201'])
    const made = await create(gw, {})
    expect(made.status).toBe(201)
    expect((await gw.call(`/v1/videos/${made.body.id}/content`)).status).toBe(404)
    expect((await gw.call('/v1/videos/video_gc_never')).status).toBe(400)
    await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })
    expect((await gw.call(`/v1/videos/${made.body.id}`)).status).toBe(404)
  })

  it("real-names: the models answer under their makers' names, and the neutral names are refused", async () => {
    const gw = varied(['real-names'])
    expect((await create(gw, {})).status).toBe(400)
    const made = await create(gw, { model: REAL_NAMES['vidA-2-pro'], size: '1792x1024' })
    expect(made.status).toBe(200)
    expect(made.body.model).toBe(REAL_NAMES['vidA-2-pro'])
  })
})

describe('the faults of the new checks', () => {
  function faulty(fault: string): TestGateway {
    const gw = testGateway({ videoStepMs: STEP_MS, faults: [fault] })
    opened.push(gw)
    return gw
  }

  it('video-unknown-500: a never-issued id answers 500, a deleted one still 404', async () => {
    const gw = faulty('video-unknown-500')
    expect((await gw.call('/v1/videos/video_never')).status).toBe(500)
    const made = await create(gw, {})
    await gw.call(`/v1/videos/${made.body.id}`, { method: 'DELETE' })
    expect((await gw.call(`/v1/videos/${made.body.id}`)).status).toBe(404)
  })

  it('video-list-open: the list answers a caller without a key; the other routes still 401', async () => {
    const gw = faulty('video-list-open')
    expect((await gw.call('/v1/videos', { key: null })).status).toBe(200)
    expect((await gw.call('/v1/videos/video_x', { key: null })).status).toBe(401)
  })

  it('video-retrieve-open: a job is retrieved without a key; an unknown id still 401, the list still 401', async () => {
    const gw = faulty('video-retrieve-open')
    const made = await create(gw, {})
    const open = await gw.call(`/v1/videos/${made.body.id}`, { key: null })
    expect(open.status).toBe(200)
    expect((await gw.call('/v1/videos/video_never', { key: null })).status).toBe(401)
    expect((await gw.call('/v1/videos', { key: null })).status).toBe(401)
  })

  it('video-default-8s: a create without seconds makes an 8-second job', async () => {
    const made = await create(faulty('video-default-8s'), {})
    expect(made.body.seconds).toBe('8')
  })

  it('video-edits-served: POST /v1/videos/edits makes a job; without the fault it is no route', async () => {
    const gw = faulty('video-edits-served')
    const clean = videosGateway()
    for (const g of [gw, clean]) {
      const source = await create(g, {})
      const edit = await g.call('/v1/videos/edits', {
        method: 'POST',
        body: { video_id: source.body.id, prompt: 'red' },
      })
      expect(edit.status).toBe(g === gw ? 400 : 404) // the source is not completed yet: refused as a remix would be
    }
  })
})

describe('the MP4 (videos/mp4.ts)', () => {
  it('keeps the aspect in whole macroblocks and one frame per second', () => {
    expect(codedSize(720, 1280)).toEqual({ width: 16, height: 32 })
    expect(codedSize(1920, 1080)).toEqual({ width: 32, height: 16 })
    const mp4 = makeMp4({ width: 720, height: 1280, seconds: 12 })
    const stsz = mp4.indexOf('stsz')
    expect(mp4.readUInt32BE(stsz + 12)).toBe(12) // sample_count
    expect(mp4.length).toBeLessThan(20_000)
  })
})
