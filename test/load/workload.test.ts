/**
 * Workload files (load/workload.ts, load/workload-plan.ts): the built-in saturation and streaming files plan what
 * those profiles always ran; a file mixes routes by weight with prompts drawn from its token distributions, in an
 * order its seed repeats; models come from the file, GATEWAY_MODELS or the catalogue; and a mistake is one line
 * naming the file, the JSON pointer and what to fix (exit 2 through the command). One short run against the
 * embedded gateway shows the mix as sent.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { wordChunks } from '../../harness/token-estimate.ts'
import { mulberry32, plannedOffsets } from '../../load/engine/arrivals.ts'
import type { PlanContext } from '../../load/profiles/profile.ts'
import { builtInWorkload } from '../../load/profiles/workload-files.ts'
import { profileNamed } from '../../load/profiles/index.ts'
import { promptOf, sampleTokens } from '../../load/synthetic.ts'
import type { LoadResult, PhasePlan } from '../../load/types.ts'
import { isProfileFile, readWorkload, workloadOf } from '../../load/workload.ts'
import { routeSequence, workloadProfile } from '../../load/workload-plan.ts'
import { runLoadCli } from '../../load/command/index.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-workload-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const MODELS = [
  { id: 'big-chat', mode: 'chat', min_tier: 4 },
  { id: 'small-chat', mode: 'chat', min_tier: 0 },
  { id: 'embed-1', mode: 'embedding', min_tier: 0 },
]

function context(over: Partial<PlanContext> = {}): PlanContext & { lookups: string[] } {
  const lookups: string[] = []
  return {
    baseUrl: 'http://127.0.0.1:1',
    embedded: false,
    minuteMs: 60_000,
    keys: { main: 'k', tier2: 'k2', tier5: 'k5' },
    tier: null,
    durationMs: null,
    rate: null,
    connections: null,
    timeoutMs: 1000,
    runId: 'run',
    seed: 1234,
    seedGiven: false,
    lookups,
    getJson: (path, slot) => {
      lookups.push(`${slot} ${path}`)
      return Promise.resolve({ status: 200, body: { data: MODELS }, headers: {} })
    },
    ...over,
  }
}

const bodyOf = (plan: PhasePlan, i = 0): Record<string, unknown> =>
  JSON.parse(String(plan.requests[i]?.body)) as Record<string, unknown>

describe('the built-in files plan what saturation and streaming always ran', () => {
  test("saturation: models and responses, closed loop at 32 connections for 20 s, the highest tier's key, throughput", async () => {
    const ctx = context()
    const [models, responses] = await workloadProfile(builtInWorkload('saturation')).plan(ctx)
    for (const p of [models, responses])
      expect(p).toMatchObject({
        engine: 'autocannon',
        slot: 'tier5',
        rate: null,
        connections: 32,
        durationMs: 20_000,
        bucket: null,
        fromRest: false,
        verdicts: ['throughput'],
      })
    expect(models?.name).toBe('models')
    expect(models?.description).toBe('GET /v1/models, 32 connections, closed loop')
    expect(new Set(models?.requests.map((r) => `${r.method} ${r.path}`))).toEqual(new Set(['GET /v1/models']))
    expect(responses?.name).toBe('responses')
    expect(responses?.requests.every((r) => r.method === 'POST' && r.path === '/v1/responses' && !r.stream)).toBe(true)
    // The tier-5 key may use the first chat model; it is named, and the body is the small one it always was.
    expect(bodyOf(responses as PhasePlan)).toMatchObject({ model: 'big-chat', max_output_tokens: 16 })
    expect(wordChunks(bodyOf(responses as PhasePlan).input as string)).toBe(2)
    expect(bodyOf(responses as PhasePlan).stream).toBeUndefined()
  })

  test('saturation --phase models looks nothing up; --tier, --connections and --duration win over the file', async () => {
    const ctx = context({ phases: ['models'], tier: 2, connections: 4, durationMs: 3000 })
    const [models, responses] = await workloadProfile(builtInWorkload('saturation')).plan(ctx)
    expect(ctx.lookups).toEqual([])
    expect(models).toMatchObject({ slot: 'tier2', connections: 4, durationMs: 3000 })
    expect(responses?.skip).toBe('not selected')
  })

  test('streaming: streams at 5/s for 20 s on the main key, timed, up to 128 output tokens, judged by streaming', async () => {
    const [streams] = await workloadProfile(builtInWorkload('streaming')).plan(context())
    expect(streams).toMatchObject({
      name: 'streams',
      engine: 'scheduler',
      slot: 'main',
      rate: 5,
      connections: 20,
      durationMs: 20_000,
      verdicts: ['streaming'],
      arrival: { process: 'constant' },
    })
    expect(streams?.requests.every((r) => r.stream === true && r.headers?.accept === 'text/event-stream')).toBe(true)
    expect(bodyOf(streams as PhasePlan)).toMatchObject({ model: 'big-chat', stream: true, max_output_tokens: 128 })
  })

  test('--rate and --tier reach the streaming phase; a tier key picks a chat model that tier may use', async () => {
    const [streams] = await workloadProfile(builtInWorkload('streaming')).plan(context({ rate: 2, tier: 2 }))
    expect(streams).toMatchObject({ rate: 2, slot: 'tier2' })
    expect(bodyOf(streams as PhasePlan).model).toBe('small-chat')
  })

  test('a --profile value with a slash or a file ending is a file; a bare name is a built-in', () => {
    expect(['./x.yaml', 'dir/x', 'x.json', 'x.yml', 'X.YAML'].every(isProfileFile)).toBe(true)
    expect(['saturation', 'tier-2-usage', 'mixed'].some(isProfileFile)).toBe(false)
    expect(profileNamed('mixed')?.name).toBe('mixed')
  })
})

const MIX = `
name: mix-test
description: three routes by weight
phases:
  - name: mix
    routes:
      - { kind: responses-stream, weight: 5 }
      - { kind: chat, weight: 3 }
      - { kind: embeddings, weight: 2 }
    rate: 40
    arrival: { process: poisson }
    inputTokens: { mean: 100, stddev: 30, min: 20, max: 200 }
    maxOutputTokens: { mean: 50, stddev: 10, min: 8, max: 80 }
    duration: 10s
`

function file(name: string, text: string): string {
  const path = join(scratch, name)
  writeFileSync(path, text)
  return path
}

describe('a mixed workload', () => {
  const mixFile = file('mix.yaml', MIX)

  test('the pool holds the routes in the proportion of their weights, with the bodies the reference gives', async () => {
    const [mix] = await workloadProfile(readWorkload(mixFile)).plan(context())
    const plan = mix as PhasePlan
    expect(plan.requests).toHaveLength(400) // 40/s for 10 s
    const count = (label: string): number => plan.requests.filter((r) => r.label === label).length
    expect([count('responses-stream'), count('chat'), count('embeddings')]).toEqual([200, 120, 80])
    expect(plan.weights).toEqual({ 'responses-stream': 0.5, chat: 0.3, embeddings: 0.2 })
    expect(plan.verdicts).toEqual(['streaming', 'throughput'])
    const chat = plan.requests.find((r) => r.label === 'chat')
    expect(chat?.path).toBe('/v1/chat/completions')
    const chatBody = JSON.parse(String(chat?.body)) as {
      messages: { role: string; content: string }[]
      max_completion_tokens: number
    }
    expect(chatBody.messages[0]?.role).toBe('user')
    expect(chatBody.max_completion_tokens).toBeGreaterThanOrEqual(8)
    const embed = JSON.parse(String(plan.requests.find((r) => r.label === 'embeddings')?.body)) as Record<
      string,
      unknown
    >
    expect(embed).toMatchObject({ model: 'embed-1' })
    expect(embed.max_output_tokens).toBeUndefined()
    // Routes are spread over the pool, not in runs: the first 40 calls hold every kind.
    expect(new Set(plan.requests.slice(0, 40).map((r) => r.label)).size).toBe(3)
  })

  test('prompts follow the input distribution: word counts of mean about 100, inside [20, 200]', async () => {
    const [mix] = await workloadProfile(readWorkload(mixFile)).plan(context())
    const words = (mix as PhasePlan).requests.map((r) => {
      const b = JSON.parse(String(r.body)) as { input?: string; messages?: { content: string }[] }
      return wordChunks(b.input ?? b.messages?.[0]?.content ?? '')
    })
    const mean = words.reduce((a, b) => a + b, 0) / words.length
    // 400 draws of stddev 30: the standard error of the mean is 1.5.
    expect(Math.abs(mean - 100)).toBeLessThan(6)
    expect(Math.min(...words)).toBeGreaterThanOrEqual(20)
    expect(Math.max(...words)).toBeLessThanOrEqual(200)
    expect(Math.max(...words) - Math.min(...words)).toBeGreaterThan(60)
  })

  test('the same seed plans the same calls in the same order at the same instants; another seed does not', async () => {
    const plan = async (seed: number, seedGiven: boolean): Promise<PhasePlan> =>
      (await workloadProfile(readWorkload(mixFile)).plan(context({ seed, seedGiven })))[0] as PhasePlan
    const [a, b, c] = [await plan(7, true), await plan(7, true), await plan(8, true)]
    expect(b.requests.map((r) => r.body)).toEqual(a.requests.map((r) => r.body))
    expect(b.arrival).toEqual(a.arrival)
    const at = (p: PhasePlan): number[] => [...plannedOffsets(p.rate as number, p.durationMs, p.arrival, 10_000)]
    expect(at(b)).toEqual(at(a))
    expect(c.requests.map((r) => r.label)).not.toEqual(a.requests.map((r) => r.label))
    expect(at(c)).not.toEqual(at(a))
  })

  test('a seed in the file is used unless --seed is given', async () => {
    const seeded = readWorkload(file('seeded.yaml', MIX.replace('name: mix\n', 'name: mix\n    seed: 99\n')))
    const [own] = await workloadProfile(seeded).plan(context({ seed: 5 }))
    expect(own?.arrival?.seed).toBe(99)
    const [given] = await workloadProfile(seeded).plan(context({ seed: 5, seedGiven: true }))
    expect(given?.arrival?.seed).not.toBe(99)
  })

  test("models: the route's own, else GATEWAY_MODELS, else the catalogue; moderations may name none", async () => {
    const w = workloadOf(
      {
        name: 'm',
        description: 'm',
        phases: [
          {
            name: 'p',
            rate: 1,
            duration: '2s',
            routes: [
              { kind: 'chat', model: 'mine' },
              { kind: 'responses' },
              { kind: 'moderations' },
              { kind: 'models-list' },
            ],
          },
        ],
      },
      'm.json',
    )
    const [p] = await workloadProfile(w).plan(context({ models: { responses: 'resp-1' } }))
    const byLabel = (label: string): Record<string, unknown> =>
      JSON.parse(String(p?.requests.find((r) => r.label === label)?.body)) as Record<string, unknown>
    expect(byLabel('chat').model).toBe('mine')
    expect(byLabel('responses').model).toBe('resp-1')
    expect(byLabel('moderations')).not.toHaveProperty('model')
    expect(p?.requests.find((r) => r.label === 'models-list')).toMatchObject({ method: 'GET', path: '/v1/models' })
    const none = workloadOf(
      {
        name: 'n',
        description: 'n',
        phases: [{ name: 'p', rate: 1, duration: '2s', routes: [{ kind: 'completions' }] }],
      },
      'n.json',
    )
    await expect(workloadProfile(none).plan(context())).rejects.toThrow(
      '(status 200) lists no completion model it may use for the completions route; name one in the profile (model) or in GATEWAY_MODELS (completion=<id>)',
    )
  })
})

describe('synthetic prompts', () => {
  test('a prompt of N tokens is N words; a spread of stddev 0 is its mean', () => {
    const random = mulberry32(1)
    expect(wordChunks(promptOf(37, random))).toBe(37)
    expect(sampleTokens({ mean: 12.4, stddev: 0, min: 1, max: 100 }, random)).toBe(12)
  })

  test('route sequences keep the weights exactly over the pool, every route at least once', () => {
    const seq = routeSequence([{ weight: 1 }, { weight: 1 }, { weight: 2 }], 100, mulberry32(3))
    expect([0, 1, 2].map((i) => seq.filter((x) => x === i).length)).toEqual([25, 25, 50])
    expect(new Set(routeSequence([{ weight: 1000 }, { weight: 1 }], 10, mulberry32(3)))).toEqual(new Set([0, 1]))
  })
})

describe('mistakes in a profile file: one line with the file, the JSON pointer and what to fix', () => {
  const phase = 'name: p\n    routes: [{ kind: chat }]\n    rate: 1\n    duration: 5s'
  const base = (extra: string, p = phase): string => `name: bad\ndescription: d\nphases:\n  - ${p}${extra}\n`
  test.each([
    [
      'kind.yaml',
      base('', phase.replace('kind: chat', 'kind: chats')),
      '/phases/0/routes/0/kind: must be equal to one of the allowed values',
    ],
    ['typo.yaml', base('\n    rat: 2'), '/phases/0: must NOT have additional properties (rat)'],
    [
      'spread.yaml',
      base('\n    inputTokens: { mean: 10, min: 20 }'),
      '/phases/0/inputTokens: needs min <= mean <= max (got min 20, mean 10, max 10)',
    ],
    [
      'closed.yaml',
      base('', 'name: p\n    routes: [{ kind: responses-stream }]\n    connections: 4\n    duration: 5s'),
      '/phases/0/routes/0/kind: a closed loop (no rate) cannot time streams; give the phase a rate',
    ],
    [
      'burst.yaml',
      base('\n    arrival: { process: poisson, burstiness: 0.5 }'),
      '/phases/0/arrival/burstiness: only the gamma process takes a burstiness',
    ],
    ['duration.yaml', base('', phase.replace('5s', 'soon')), '/phases/0/duration: must match pattern'],
    ['short.yaml', base('', phase.replace('5s', '10ms')), '/phases/0/duration: must be a duration from 1s to 1h'],
    [
      'twice.yaml',
      `name: bad\ndescription: d\nphases:\n  - ${phase}\n  - ${phase}\n`,
      '/phases/1/name: "p" names an earlier phase too',
    ],
    ['syntax.yaml', 'name: [bad\n', 'syntax.yaml:2:1: not YAML'],
    ['broken.json', '{"name": ', 'broken.json: not JSON'],
  ])('%s', (name, text, message) => {
    const path = file(name, text)
    expect(() => readWorkload(path)).toThrow(
      `${path}${message.startsWith(name) ? message.slice(name.length) : `: ${message}`}`,
    )
  })

  test('through the command: exit 2, one line on stderr, nothing run', async () => {
    const path = file('cli.yaml', base('\n    ramp: { shape: exponential, span: 5s, from: 0 }'))
    let stderr = ''
    const code = await runLoadCli(['--profile', path, '--report-dir', join(scratch, 'never')], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      env: {},
    })
    expect(code).toBe(2)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr.trim()).toBe(
      `load: ${path}: /phases/0/ramp/from: an exponential ramp cannot start at 0 calls per second`,
    )
    let missing = ''
    expect(
      await runLoadCli(['--profile', './no-such.yaml'], {
        stdout: () => undefined,
        stderr: (t) => (missing += t),
        env: {},
      }),
    ).toBe(2)
    expect(missing.trim()).toMatch(/no-such\.yaml: no such profile file$/)
  })
})

describe('a run', () => {
  test('a mixed file against the embedded gateway: the calls by route follow the weights, every one answered', async () => {
    const path = file('run.yaml', MIX.replace('rate: 40', 'rate: 16').replace('duration: 10s', 'duration: 3s'))
    const dir = join(scratch, 'run')
    let stdout = ''
    let stderr = ''
    const code = await runLoadCli(['--profile', path, '--minute-ms', '4000', '--seed', '3', '--report-dir', dir], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: {},
    })
    const runDir = join(dir, 'load', readdirSync(join(dir, 'load')).find((d) => d !== 'latest') as string)
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as LoadResult
    // A busy machine may put the generator behind its plan: inconclusive, never a failure.
    const behind = result.verdicts.filter((v) => v.status === 'inconclusive')
    expect(
      behind.every((v) => /behind its plan/.test(v.detail)),
      stderr + stdout,
    ).toBe(true)
    expect(code, stderr + stdout).toBe(behind.length > 0 ? 3 : 0)
    expect(result.profile.seed).toBe(3)
    const phase = result.phases[0]
    const mix = phase?.mix ?? {}
    const sent = Object.values(mix).reduce((a, c) => a + c.sent, 0)
    expect(sent).toBe(phase?.sent)
    expect(sent).toBeGreaterThan(25)
    // The pool holds the weights exactly; a run sends a whole number of pools and part of one more.
    for (const [label, weight] of Object.entries({ 'responses-stream': 0.5, chat: 0.3, embeddings: 0.2 })) {
      expect(Math.abs((mix[label]?.sent ?? 0) - weight * sent), label).toBeLessThanOrEqual(
        Math.max(3, 0.15 * weight * sent),
      )
      expect(mix[label]?.ok).toBe(mix[label]?.sent)
    }
    expect(phase?.plan.arrival).toMatchObject({ process: 'poisson' })
    const md = readFileSync(join(runDir, 'summary.md'), 'utf8')
    expect(md).toMatch(/calls by route: responses-stream \d+ \(\d+ %, weight 50 %; \d+ 2xx\)/)
    expect(md).toContain(`(seed 3)`)
    expect(md).toContain(`arrivals poisson; seed ${phase?.plan.arrival?.seed}`)
    const html = readFileSync(join(runDir, 'report.html'), 'utf8')
    expect(html).toContain(`<th>arrivals</th><td>poisson; seed ${phase?.plan.arrival?.seed}</td>`)
    expect(html).toContain('<dt>seed</dt><dd>3 (--seed 3 repeats the arrivals and bodies)</dd>')
  }, 60_000)
})
