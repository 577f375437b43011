/**
 * Memory: peak RSS of the gateway and of the generator over a minute of saturation, each in its own process so
 * that each figure is its own. The generator is the load command itself (scripts/load.ts, spawned as node
 * directly: `npm run` would fork, and the pid to read would be npm's), against the gateway in a child process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startChildGateway } from './child-gateway.ts'
import { kbToMb, procStatusKb, spawnNodeScript, stopChild, waitForExit } from './children.ts'
import type { Row } from './table.ts'

interface MemoryOptions {
  /** Length of each of the saturation profile's two phases (models, responses): the run lasts twice this. */
  phaseMs: number
  /** The gateway child's rate-limit minute (see bench.ts for why it is short). */
  minuteMs: number
}

export const MEMORY = {
  goalMb: 300, // each process stays under this at its peak
  pollMs: 500,
  // Beyond the phases: tsx compiling the load command, planning, and rendering report.html at the end.
  overheadMs: 90_000,
}

export async function memory(o: MemoryOptions): Promise<Row> {
  const gateway = await startChildGateway({ minuteMs: o.minuteMs })
  let reportDir: string | null = null
  let generator: ReturnType<typeof spawnNodeScript> | null = null
  let poller: NodeJS.Timeout | null = null
  try {
    reportDir = await mkdtemp(join(tmpdir(), 'bench-memory-'))
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')))
    env.GATEWAY_BASE_URL = gateway.url
    env.GATEWAY_API_KEY = gateway.keys.GATEWAY_API_KEY
    env.GATEWAY_API_KEY_TIER5 = gateway.keys.GATEWAY_API_KEY_TIER5
    const args = ['--profile', 'saturation', '--duration', `${o.phaseMs / 1000}s`, '--minute-ms', String(o.minuteMs), '--report-dir', reportDir]
    const child = spawnNodeScript('scripts/load.ts', args, { env, preload: ['./scripts/bench/peak-rss-on-exit.ts'] })
    generator = child
    const pid = child.pid as number
    let stderr = ''
    let stdout = ''
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-8192)))
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-8192)))
    let polledKb = 0
    const poll = (): void => {
      polledKb = Math.max(polledKb, procStatusKb(pid, 'VmRSS') ?? 0, procStatusKb(pid, 'VmHWM') ?? 0)
    }
    poller = setInterval(poll, MEMORY.pollMs)
    const timeoutMs = 2 * o.phaseMs + MEMORY.overheadMs
    const exit = await waitForExit(child, timeoutMs)
    clearInterval(poller)
    if (exit === null) throw new Error(`the load command did not end within ${(timeoutMs / 1000).toFixed(0)} s`)
    // 0 all verdicts passed, 1 one failed, 3 inconclusive: the run happened and its memory counts. 2: it did not run.
    if (exit.code === null || exit.code === 2) throw new Error(`the load command ended with ${exit.code ?? exit.signal}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`)
    const exitKb = Number(/bench-peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? 0)
    const generatorKb = Math.max(polledKb, exitKb)
    const gatewayKb = gateway.peakRssKb()
    if (gatewayKb === null) throw new Error('the gateway child was gone before its peak RSS could be read')
    const generatorMb = kbToMb(generatorKb)
    const gatewayMb = kbToMb(gatewayKb)
    // The load command's table of figures: phase, sent, achieved/offered per second, ...
    const phases = [...stdout.matchAll(/^(models|responses)\s+(\d+)\s+([\d.]+)\//gm)].map((m) => `${m[1]} ${m[2]} calls at ${Number(m[3]).toFixed(0)}/s`).join(', ')
    return {
      benchmark: `memory (peak RSS over ${(2 * o.phaseMs) / 1000} s of saturation)`,
      measured: `gateway ${gatewayMb.toFixed(0)} MB`,
      baseline: `generator ${generatorMb.toFixed(0)} MB`,
      figure: `max ${Math.max(gatewayMb, generatorMb).toFixed(0)} MB`,
      goal: `< ${MEMORY.goalMb} MB each`,
      met: gatewayMb < MEMORY.goalMb && generatorMb < MEMORY.goalMb,
      note:
        `npm run load -- --profile saturation --duration ${o.phaseMs / 1000}s --minute-ms ${o.minuteMs} (both phases, models then responses: ${(2 * o.phaseMs) / 1000} s of load) as node scripts/load.ts in one child process, ` +
        `the reference gateway (${o.minuteMs} ms minute: every call admitted, its stores filled) in another; VmHWM of each (MB = 10^6 bytes): the gateway's read before it was stopped, the generator's as it exited ` +
        `(polled every ${MEMORY.pollMs} ms: ${kbToMb(polledKb).toFixed(0)} MB; at exit: ${exitKb > 0 ? `${kbToMb(exitKb).toFixed(0)} MB` : 'not reported'}); load command exit ${exit.code}; sent: ${phases || 'no figures printed'}.`,
    }
  } finally {
    if (poller) clearInterval(poller)
    if (generator) await stopChild(generator)
    await gateway.close()
    if (reportDir !== null) await rm(reportDir, { recursive: true, force: true })
  }
}
