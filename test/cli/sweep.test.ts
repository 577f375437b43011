/**
 * `npm run conformance -- sweep` against the embedded reference gateway: it lists the files (Part 1 §4.4, the
 * list cursor followed) and video jobs (Part 2 §4.1) that carry a run tag of an earlier run, with every key given;
 * deletes them only with --yes; and never touches anything without our tag, a run named by --keep, or a run that
 * may still be going. The gateway's clock starts in 2024, so that what the test creates is old by created_at.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import { newRunId } from '../../harness/setup/target.ts'
import { runSweep, type SweepIo } from '../../harness/command/sweep.ts'

const OLD = '20240301-000000-aaaa'
const KEPT = '20240301-000000-bbbb'
const FRESH = newRunId() // started now: its resources may belong to a run still going

let gw: EmbeddedGateway
let cwd: string

async function upload(key: string, filename: string): Promise<string> {
  const form = new FormData()
  form.set('purpose', 'user_data')
  form.set('file', new Blob(['left behind\n'], { type: 'text/plain' }), filename)
  const res = await fetch(`${gw.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  })
  expect(res.status, `upload of ${filename}`).toBe(200)
  return ((await res.json()) as { id: string }).id
}

async function createVideo(safetyIdentifier: string | undefined): Promise<string> {
  const body = {
    model: 'vidA-2',
    prompt: 'a paper boat on a lake',
    ...(safetyIdentifier === undefined ? {} : { safety_identifier: safetyIdentifier }),
  }
  const res = await fetch(`${gw.url}/v1/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.keys.main}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status, `video ${safetyIdentifier}`).toBe(200)
  return ((await res.json()) as { id: string }).id
}

async function names(key: string): Promise<string[]> {
  const files = (await (await fetch(`${gw.url}/v1/files`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    data: Array<{ filename: string }>
  }
  const videos = (await (
    await fetch(`${gw.url}/v1/videos`, { headers: { authorization: `Bearer ${key}` } })
  ).json()) as { data: Array<{ safety_identifier: string | null }> }
  return [
    ...files.data.map((f) => f.filename),
    ...videos.data.map((v) => `video:${v.safety_identifier ?? 'none'}`),
  ].sort()
}

async function sweep(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const io: SweepIo = {
    out: (t) => {
      out += t
    },
    err: (t) => {
      err += t
    },
    env: { ...keysEnv(), ...env },
    cwd,
    now: Date.now,
    pageLimit: 2,
  }
  const code = await runSweep(args, io)
  for (const key of Object.values(gw.keys)) expect(out + err, 'no key in the output').not.toContain(key)
  return { code, out, err }
}

function keysEnv(): Record<string, string> {
  return {
    GATEWAY_API_KEY: gw.keys.main,
    GATEWAY_API_KEY_TIER0: gw.keys.tier0,
    GATEWAY_API_KEY_TIER2: gw.keys.tier2,
    GATEWAY_SUSPENDED_API_KEY: gw.keys.suspended,
  }
}

const ORIGINAL_MAIN = [
  `gc-${OLD}-old.txt`, // an earlier run's file: swept
  `gc-${KEPT}-kept.txt`, // its run is named by --keep
  `gc-${FRESH}-fresh.txt`, // a run started just now
  `gc-${OLD}-load-tier2.txt`, // an earlier load run's upload: swept
  'gc-load-2.txt', // no run id: not a run tag, left alone
  'notes.txt', // not ours
  `xgc-${OLD}-x.txt`, // the tag not at the start
  `gc-${OLD}`, // no dash after the run id
  'gc-20241399-000000-aaaa-bad.txt', // not a date: not a run id
]

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'gc-sweep-')) // no developer's .env here
  gw = await startEmbeddedGateway({ now: '2024-03-01T12:00:00Z' })
  for (const name of ORIGINAL_MAIN) await upload(gw.keys.main, name)
  await upload(gw.keys.tier0, `gc-${OLD}-tier0.txt`)
  await createVideo(`gc-${OLD}-video`)
  await createVideo('someone-else')
  await createVideo(undefined)
})

afterAll(async () => {
  await gw?.close()
  rmSync(cwd, { recursive: true, force: true })
})

describe('sweep (Part 1 §4.4 files, Part 2 §4.1 videos)', () => {
  test('a dry run lists the tagged leftovers of earlier runs and deletes nothing', async () => {
    const before = await names(gw.keys.main)
    const { code, out, err } = await sweep(['--base-url', gw.url, '--keep', KEPT])
    expect(err).toBe('')
    expect(code).toBe(0)
    const row = (tag: string) => out.split('\n').find((line) => line.includes(tag)) ?? ''
    expect(out).toMatch(/2 keys; 6 carry a run tag; 4 left by runs older than 2 h and not kept/)
    expect(row(OLD)).toMatch(/^file .* delete$/m)
    expect(out.split('\n').filter((l) => l.includes(OLD) && l.endsWith('delete'))).toHaveLength(4) // file, load file, tier0 file, video
    expect(out).toMatch(/video .*20240301-000000-aaaa .* main +delete/)
    expect(out).toMatch(/20240301-000000-aaaa .* tier0 +delete/)
    expect(row(KEPT)).toMatch(/keep \(--keep\)$/)
    expect(row(FRESH)).toMatch(/keep \(recent\)$/)
    expect(row('load-tier2')).toMatch(/ 12 +main +delete$/)
    for (const other of ['notes.txt', 'gc-load-2', 'xgc-', 'someone-else', '20241399']) expect(out).not.toContain(other)
    expect(out).toContain('dry run: nothing deleted; add --yes to delete the 4 marked delete')
    expect(await names(gw.keys.main)).toEqual(before)
  })

  test('--yes deletes exactly those, with the key that listed each; a second sweep finds nothing to delete', async () => {
    const { code, out } = await sweep(['--base-url', gw.url, '--keep', KEPT, '--yes'])
    expect(code).toBe(0)
    expect(out).toContain('deleted 4 of 4')
    expect(await names(gw.keys.main)).toEqual(
      [
        ...ORIGINAL_MAIN.filter((n) => n !== `gc-${OLD}-old.txt` && n !== `gc-${OLD}-load-tier2.txt`),
        'video:none',
        'video:someone-else',
      ].sort(),
    )
    expect(await names(gw.keys.tier0)).toEqual([])
    const again = await sweep(['--base-url', gw.url, '--yes', '--keep', KEPT])
    expect(again.code).toBe(0)
    expect(again.out).toMatch(/; 0 left by runs older than/)
  })

  test('--older-than 0s takes in a run started just now; --keep still holds', async () => {
    const { code, out } = await sweep(['--base-url', gw.url, '--older-than', '0s', '--keep', KEPT])
    expect(code).toBe(0)
    expect(out.split('\n').find((l) => l.includes(FRESH))).toMatch(/delete$/)
    expect(out.split('\n').find((l) => l.includes(KEPT))).toMatch(/keep \(--keep\)$/)
  })

  test('a key whose list is refused makes the sweep exit 2, naming the key slot and not the key', async () => {
    const { code, err } = await sweep(['--base-url', gw.url], { GATEWAY_API_KEY_TIER3: 'sk-gc-not-a-key-0000' })
    expect(code).toBe(2)
    expect(err).toMatch(/could not list: tier3: GET \/v1\/files\?limit=2 answered 401/)
    expect(err).not.toContain('sk-gc-not-a-key-0000')
  })

  test.each([
    [[], {}, /^sweep: sweep needs a target: set GATEWAY_BASE_URL or --base-url/],
    [
      ['--keep', 'last-night'],
      { GATEWAY_BASE_URL: 'http://127.0.0.1:9' },
      /^sweep: --keep "last-night" is not a run id/,
    ],
    [
      ['--older-than', 'soon'],
      { GATEWAY_BASE_URL: 'http://127.0.0.1:9' },
      /^sweep: --older-than "soon" is not a duration/,
    ],
    [['--all'], {}, /^sweep: Unknown option '--all'/],
    [['--base-url', 'http://127.0.0.1:9'], {}, /^sweep: cannot reach http:\/\/127\.0\.0\.1:9: connection refused/],
  ])('bad configuration %j exits 2 with one line', async (args, env, pattern) => {
    const { code, out, err } = await sweep(args, env)
    expect(code).toBe(2)
    expect(out).toBe('')
    expect(err.trim().split('\n')).toHaveLength(1)
    expect(err).toMatch(pattern)
  })
})
