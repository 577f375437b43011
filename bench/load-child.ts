/**
 * The load command (scripts/load.ts) in a child process against a gateway child, its peak RSS measured: spawned as
 * node directly (`npm run` would fork, and the pid to read would be npm's), polled from /proc and reported by the
 * child itself as it exits (peak-rss-on-exit.ts), since polling can miss the report's rendering at the end.
 */
import type { ChildGateway } from './child-gateway.ts'
import { procStatusKb, spawnNodeScript, stopChild, waitForExit } from './children.ts'

export const LOAD_CHILD = { pollMs: 500 }

/** Preloaded by URL, not by a path from the root, so that the child finds it wherever the bench is run from. */
const PEAK_RSS_ON_EXIT = new URL('./peak-rss-on-exit.ts', import.meta.url).href

export interface LoadChildRun {
  /** The larger of the polled and the exit-reported peak, in kB. */
  peakKb: number
  polledKb: number
  exitKb: number
  exitCode: number
  stdout: string
}

/** Runs `npm run load -- <args>` against the gateway child with its main and tier-5 keys; throws if it did not run. */
export async function runLoadChild(
  gateway: ChildGateway,
  args: readonly string[],
  timeoutMs: number,
): Promise<LoadChildRun> {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')),
  )
  env.GATEWAY_BASE_URL = gateway.url
  env.GATEWAY_API_KEY = gateway.keys.GATEWAY_API_KEY
  env.GATEWAY_API_KEY_TIER5 = gateway.keys.GATEWAY_API_KEY_TIER5
  const child = spawnNodeScript('scripts/load.ts', args, { env, preload: [PEAK_RSS_ON_EXIT] })
  const pid = child.pid as number
  let stderr = ''
  let stdout = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-8192)))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-8192)))
  let polledKb = 0
  const poller = setInterval(() => {
    polledKb = Math.max(polledKb, procStatusKb(pid, 'VmRSS') ?? 0, procStatusKb(pid, 'VmHWM') ?? 0)
  }, LOAD_CHILD.pollMs)
  try {
    const exit = await waitForExit(child, timeoutMs)
    if (exit === null) throw new Error(`the load command did not end within ${(timeoutMs / 1000).toFixed(0)} s`)
    // 0 all verdicts passed, 1 one failed, 3 inconclusive: the run happened and its memory counts. 2: it did not run.
    if (exit.code === null || exit.code === 2)
      throw new Error(
        `the load command ended with ${exit.code ?? exit.signal}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
      )
    const exitKb = Number(/bench-peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? 0)
    return { peakKb: Math.max(polledKb, exitKb), polledKb, exitKb, exitCode: exit.code, stdout }
  } finally {
    clearInterval(poller)
    await stopChild(child)
  }
}
