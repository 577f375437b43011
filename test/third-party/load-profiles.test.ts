/**
 * Every built-in load profile against OpenAI-compatible servers from npm that no one here wrote
 * (test/third-party/servers.ts), as an operator would point the load command at a gateway not ours: its chat model
 * named (GATEWAY_MODELS), its one key given for every tier, the limits it announces nowhere stated (--limit). Each
 * runs briefly (a one-second minute, phases of a second or three at 4 calls a second, one phase of each usage
 * profile; tier-N-model at 20 a second for two seconds, past a stated limit of 4 a second) and
 * must end in a verdict: exit 0 or 1, never a harness error (2) or an unsettled run (13); 3 only where the generator
 * fell behind its plan on a busy machine twice, which the verdicts name. The servers keep no
 * state, so the profiles run side by side; each profile runs against one of them, in turn. A run the generator
 * fell behind in (this process busy with the others) is made once more.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { runLoadCli } from '../../load/command/index.ts'
import { allProfiles } from '../../load/profiles/index.ts'
import type { LoadResult } from '../../load/types.ts'
import { SERVERS } from './servers.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-load-third-party-'))
const targets: { url: string; close(): Promise<void> }[] = []

beforeAll(async () => {
  // mock-llm logs every request it serves to the console.
  vi.spyOn(console, 'log').mockImplementation(() => undefined)
  for (const server of SERVERS) targets.push(await server.start())
})
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()))
  rmSync(scratch, { recursive: true, force: true })
})

/** The limits a profile needs stated when the target announces none: a tier's chat limit, a stated route. */
function limitsFor(name: string): string[] {
  // Past its limit: a target that announces none refuses nothing, and the verdicts say so.
  const tier = /^tier-(\d)-model$/.exec(name)?.[1]
  if (tier !== undefined) return ['--limit', `chat=4/1s,key=tier${tier}`]
  if (name === 'capacity') return ['--tier', '0', '--limit', 'responses=20/1s,key=tier0']
  return name === 'stated-limits' ? ['--limit', 'chat=20/1s', '--limit', 'GET /user/v1/credit=5/1s'] : []
}

/** The chat model GATEWAY_MODELS names, named for embeddings too: mixed loads them, and the server says what it serves. */
const chatOf = (models: string): string => /chat=([^,]+)/.exec(models)?.[1] as string

async function load(
  name: string,
  args: string[],
  env: Record<string, string>,
  attempt: number,
): Promise<{ code: number; stdout: string; stderr: string; behind: boolean }> {
  let stdout = ''
  let stderr = ''
  const dir = join(scratch, `${name}-${attempt}`)
  const code = await runLoadCli([...args, '--report-dir', dir], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env,
  })
  let behind = false
  try {
    const result = JSON.parse(readFileSync(join(dir, 'load', 'latest', 'result.json'), 'utf8')) as LoadResult
    behind = result.verdicts.some((v) => v.detail.includes('behind its plan'))
  } catch {
    // No report: the exit code says why.
  }
  return { code, stdout, stderr, behind }
}

const profiles = allProfiles().map((p) => p.name)

/**
 * Every profile's run, side by side with the others of its batch: the tier-N-model profiles, whose phase at five
 * times a limit holds the generator to a plan of 20 calls a second, run apart from the closed loops of backoff and
 * the reports of the rest, which would hold this one process's event loop and the generator behind its plan.
 */
const batches = [profiles.filter((p) => !/^tier-\d-model$/.test(p)), profiles.filter((p) => /^tier-\d-model$/.test(p))]

describe.concurrent.each(batches.map((b, i) => [i + 1, b] as const))(
  'batch %i: each built-in profile against a server not ours ends in a verdict',
  (_, batch) => {
    batch.forEach((name) => {
      const i = profiles.indexOf(name)
      const server = SERVERS[i % SERVERS.length]!
      test(`${name} against ${server.name}`, async () => {
        const target = targets[i % SERVERS.length]!
        const keys = Object.fromEntries([0, 1, 2, 3, 4, 5].map((t) => [`GATEWAY_API_KEY_TIER${t}`, server.key]))
        // tier-N-model at five times its limit for two minutes: past any algorithm's bound, whatever the latency.
        const pace = /^tier-\d-model$/.test(name)
          ? ['--rate', '20', '--duration', '2s', '--connections', '64']
          : ['--rate', '4', '--duration', name === 'mixed' ? '3s' : '1s']
        const args = ['--profile', name, '--minute-ms', '1000', ...pace, ...limitsFor(name)]
        if (/^tier-\d-usage$/.test(name)) args.push('--phase', 'double')
        const env = {
          GATEWAY_BASE_URL: target.url,
          GATEWAY_API_KEY: server.key,
          GATEWAY_MODELS: `${server.models},embedding=${chatOf(server.models)}`,
          ...keys,
        }
        let run = await load(name, args, env, 1)
        // Inconclusive because this busy process (or a busy machine) held the generator behind its plan is a
        // measurement not made, never the target's verdict: made once more, and accepted then only saying so.
        if (run.code === 3 && run.behind) run = await load(name, args, env, 2)
        const said = `${name}: exit ${run.code}\n${run.stderr}\n${run.stdout.split('\n').slice(-12).join('\n')}`
        expect(run.code === 0 || run.code === 1 || (run.code === 3 && run.behind), said).toBe(true)
        expect(run.stdout).toMatch(/\n(PASS|FAIL|INCONCLUSIVE) \(exit [013]\)/)
      }, 60_000)
    })
  },
)
