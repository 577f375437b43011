/**
 * Uploads far past their limit are refused without being buffered: the reference gateway runs in a child
 * process (`scripts/gateway.ts`, as `npm run gateway` does), bodies of hundreds of MB are generated while they
 * are sent (harness/multipart.ts: never held in memory here either), and the gateway's peak RSS (VmHWM of
 * /proc/<pid>/status) must stay far below the body sizes.
 *
 * Limits and statuses: files 128 MB (Part 1 §4.4, §8.4), transcription and translation 25 MB (Part 2 §8), a video's
 * input_reference 20 MB (the gateway's own limit; Part 2 §4.1 gives none); each refused with 400, the invalid-request
 * status of Part 1 §7 (it lists no 413), in the compatible error body.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import { TINY_PNG_BASE64 } from '../../gateway/compatible/simulate.ts'
import { multipartBody, type MultipartBody } from '../../harness/multipart.ts'
import { wavTone } from '../../suites/audio/fixtures.ts'
import { answerProblems } from './fuzz-shapes.ts'

const MB = 1_000_000
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const AUTH = { authorization: `Bearer ${SEEDED_KEYS.tier5}` }
/** How much the peak RSS may grow over all the uploads: buffers and the 25 MB audio a route keeps, not the bodies. */
const GROWTH_BUDGET_BYTES = 120 * MB

let child: ChildProcess
let base = ''

/** Resident-set figures of the gateway process, in bytes: now (VmRSS) and the peak so far (VmHWM). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

beforeAll(async () => {
  child = spawn(process.execPath, ['scripts/gateway.ts', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (url) resolve(url)
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code) =>
      reject(new Error(`the gateway exited (${code}) before listening: ${output.slice(0, 500)}`)),
    )
  })
}, 60_000)

afterAll(async () => {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
})

interface Sent {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  produced: number
}

/** Streams the form to the gateway; `chunked` leaves out Content-Length, so that the gateway cannot know the size. */
async function upload(path: string, form: MultipartBody, chunked = false): Promise<Sent> {
  const headers = chunked ? { 'content-type': form.headers['content-type'] } : form.headers
  let response: Awaited<ReturnType<typeof request>>
  try {
    response = await request(`${base}${path}`, {
      method: 'POST',
      headers: { ...headers, ...AUTH },
      body: Readable.from(form.chunks()),
    })
  } catch (error) {
    // A reset instead of the answer: the client never learnt why its upload stopped.
    throw new Error(
      `POST ${path} (${chunked ? 'chunked' : 'with Content-Length'}) failed after ${form.produced()} bytes with no answer: ${(error as Error).message}`,
    )
  }
  return {
    status: response.statusCode,
    headers: response.headers,
    body: await response.body.text(),
    produced: form.produced(),
  }
}

const audioForm = (size: number | Buffer) =>
  multipartBody([['model', 'gw-transcribe-1']], {
    filename: 'big.wav',
    contentType: 'audio/wav',
    content: typeof size === 'number' ? { size } : size,
  })
const videoForm = (size: number | Buffer) =>
  multipartBody(
    [
      ['model', 'vidA-2'],
      ['prompt', 'a boat'],
      ['seconds', '4'],
    ],
    {
      name: 'input_reference',
      filename: 'big.png',
      contentType: 'image/png',
      content: typeof size === 'number' ? { size } : size,
    },
  )
const fileForm = (size: number) => multipartBody([['purpose', 'user_data']], { filename: 'big.bin', content: { size } })

const PNG = Buffer.from(TINY_PNG_BASE64, 'base64')

/** The three upload routes, each with a body far past its limit and a small valid one. */
const CASES = [
  { path: '/v1/files', limit: 128 * MB, size: 512 * MB, big: fileForm, small: () => fileForm(1_000), param: 'file' },
  {
    path: '/v1/audio/transcriptions',
    limit: 25 * MB,
    size: 256 * MB,
    big: audioForm,
    small: () => audioForm(wavTone({ seconds: 1 })),
    param: 'file',
  },
  {
    path: '/v1/audio/translations',
    limit: 25 * MB,
    size: 256 * MB,
    big: audioForm,
    small: () => audioForm(wavTone({ seconds: 1 })),
    param: 'file',
  },
  {
    path: '/v1/videos',
    limit: 20 * MB,
    size: 256 * MB,
    big: videoForm,
    small: () => videoForm(PNG),
    param: 'input_reference',
  },
] as const

describe('uploads far past their limit, in a gateway child process (Part 1 §4.4, §7, §8.4; Part 2 §4.1, §8)', () => {
  it('refuses each with 400 in the compatible body before reading it, with the peak RSS far below the bodies', async () => {
    const pid = child.pid as number
    // Every route once with a valid body first: the code paths are loaded before the baseline is taken.
    for (const c of CASES) {
      const ok = await upload(c.path, c.small())
      expect(ok.status, `${c.path} with a small valid upload: ${ok.body.slice(0, 200)}`).toBe(200)
    }
    const baseline = memoryOf(pid)
    let sent = 0
    for (const [i, c] of CASES.entries()) {
      // The files route once without Content-Length: the limit must hold on what arrives, not on what is announced.
      const result = await upload(c.path, c.big(c.size), c.path === '/v1/files' && i === 0)
      sent += c.size
      expect(
        answerProblems('compatible', [400], { ...result, headers: result.headers }),
        `${c.path} with ${c.size / MB} MB`,
      ).toEqual([])
      expect(result.status).toBe(400)
      expect(JSON.parse(result.body).error.param).toBe(c.param)
      // The client was stopped near the limit: the gateway did not read the rest of the body.
      expect(result.produced, `${c.path}: bytes sent before the refusal`).toBeLessThan(c.limit + 64 * MB)
    }
    const after = memoryOf(pid)
    const growth = after.peak - baseline.peak
    console.info(
      `gateway peak RSS: ${(baseline.peak / MB).toFixed(0)} MB before, ${(after.peak / MB).toFixed(0)} MB after ${(sent / MB).toFixed(0)} MB of oversized bodies (growth ${(growth / MB).toFixed(0)} MB)`,
    )
    expect(growth).toBeLessThan(GROWTH_BUDGET_BYTES)
    expect(after.peak).toBeLessThan(Math.min(...CASES.map((c) => c.size)))
    // Still serving: each route takes a valid upload again.
    for (const c of CASES) expect((await upload(c.path, c.small())).status, `${c.path} after the refusals`).toBe(200)
  }, 60_000)
})
