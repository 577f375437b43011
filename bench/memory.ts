/**
 * Memory: peak RSS of the gateway and of the generator over a minute of saturation, each in its own process so
 * that each figure is its own. The generator is the load command itself (load-child.ts), against the gateway in
 * a child process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startChildGateway } from './child-gateway.ts'
import { kbToMb } from './children.ts'
import { LOAD_CHILD, runLoadChild } from './load-child.ts'
import type { Row } from './table.ts'

interface MemoryOptions {
  /** Length of each of the saturation profile's two phases (models, responses): the run lasts twice this. */
  phaseMs: number
  /** The gateway child's rate-limit minute (see bench.ts for why it is short). */
  minuteMs: number
}

export const MEMORY = {
  goalMb: 300, // each process stays under this at its peak
  // Beyond the phases: compiling the load command, planning, and rendering report.html at the end.
  overheadMs: 90_000,
}

export async function memory(o: MemoryOptions): Promise<Row> {
  const gateway = await startChildGateway({ minuteMs: o.minuteMs })
  let reportDir: string | null = null
  try {
    reportDir = await mkdtemp(join(tmpdir(), 'bench-memory-'))
    const args = [
      '--profile',
      'saturation',
      '--duration',
      `${o.phaseMs / 1000}s`,
      '--minute-ms',
      String(o.minuteMs),
      '--report-dir',
      reportDir,
    ]
    const run = await runLoadChild(gateway, args, 2 * o.phaseMs + MEMORY.overheadMs)
    const gatewayKb = gateway.peakRssKb()
    if (gatewayKb === null) throw new Error('the gateway child was gone before its peak RSS could be read')
    const generatorMb = kbToMb(run.peakKb)
    const gatewayMb = kbToMb(gatewayKb)
    // The load command's table of figures: phase, sent, achieved/offered per second, ...
    const phases = [...run.stdout.matchAll(/^(models|responses)\s+(\d+)\s+([\d.]+)\//gm)]
      .map((m) => `${m[1]} ${m[2]} calls at ${Number(m[3]).toFixed(0)}/s`)
      .join(', ')
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
        `(polled every ${LOAD_CHILD.pollMs} ms: ${kbToMb(run.polledKb).toFixed(0)} MB; at exit: ${run.exitKb > 0 ? `${kbToMb(run.exitKb).toFixed(0)} MB` : 'not reported'}); load command exit ${run.exitCode}; sent: ${phases || 'no figures printed'}.`,
    }
  } finally {
    await gateway.close()
    if (reportDir !== null) await rm(reportDir, { recursive: true, force: true })
  }
}
