/**
 * Memory over time: the generator's peak RSS in an open-loop run five times as long as another, side by side,
 * each against its own gateway child. The recorder folds every call into fixed-size aggregates, so the peak
 * should stay flat; only the time series grows, by a few numbers per 100 ms slice. A per-call leak shows as a
 * ratio well above 1: tens of thousands of calls more in the long run.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startChildGateway, type ChildGateway } from './child-gateway.ts'
import { kbToMb } from './children.ts'
import { runLoadChild } from './load-child.ts'
import type { Row } from './table.ts'

export interface RssGrowthOptions {
  /** The short run; the long one lasts five times this. */
  shortMs: number
  minuteMs: number
}

export const RSS_GROWTH = {
  goal: 1.1, // peak RSS within 10 % from a 1-minute to a 5-minute run
  factor: 5,
  // tier-5-usage's at-limit phase at this rate: open loop, every call admitted (750 a 1 s minute), and the long
  // run's calls stay under the profile's cap of 50,000.
  rate: 150,
  overheadMs: 90_000, // compiling the load command, the phase's wait for rest, rendering report.html
}

export async function rssGrowth(o: RssGrowthOptions): Promise<Row> {
  // A gateway each: one key's bucket shared by two runs would fail their rate-limit verdicts, which judge one generator.
  const gateways = await Promise.all([
    startChildGateway({ minuteMs: o.minuteMs }),
    startChildGateway({ minuteMs: o.minuteMs }),
  ])
  let reportDir: string | null = null
  try {
    reportDir = await mkdtemp(join(tmpdir(), 'bench-rss-growth-'))
    const run = (ms: number, name: string, gateway: ChildGateway) =>
      runLoadChild(
        gateway,
        [
          '--profile',
          'tier-5-usage',
          '--phase',
          'at-limit',
          '--rate',
          String(RSS_GROWTH.rate),
          '--duration',
          `${ms / 1000}s`,
          '--minute-ms',
          String(o.minuteMs),
          '--report-dir',
          join(reportDir as string, name),
        ],
        ms + RSS_GROWTH.overheadMs,
      )
    const longMs = RSS_GROWTH.factor * o.shortMs
    const [short, long] = await Promise.all([run(o.shortMs, 'short', gateways[0]), run(longMs, 'long', gateways[1])])
    const sent = (stdout: string): string => /^at-limit\s+(\d+)/m.exec(stdout)?.[1] ?? '?'
    const ratio = long.peakKb / short.peakKb
    return {
      benchmark: `memory over time (generator peak RSS, ${longMs / 1000} s against ${o.shortMs / 1000} s of open-loop load)`,
      measured: `${kbToMb(long.peakKb).toFixed(0)} MB`,
      baseline: `${kbToMb(short.peakKb).toFixed(0)} MB`,
      figure: ratio.toFixed(2),
      goal: `<= ${RSS_GROWTH.goal}`,
      met: ratio <= RSS_GROWTH.goal,
      note:
        `npm run load -- --profile tier-5-usage --phase at-limit --rate ${RSS_GROWTH.rate} for ${o.shortMs / 1000} s (${sent(short.stdout)} calls) and ${longMs / 1000} s (${sent(long.stdout)} calls) at the same time, ` +
        `each as node scripts/load.ts in its own process against its own reference gateway child (${o.minuteMs} ms minute); VmHWM at exit (MB = 10^6 bytes), exits ${short.exitCode} and ${long.exitCode}.`,
    }
  } finally {
    await Promise.all(gateways.map((g) => g.close()))
    if (reportDir !== null) await rm(reportDir, { recursive: true, force: true })
  }
}
