/** A profile's run as the flags ask: the target readied, the profile run --repeat times, the report written. */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULTS, loadEnv, resolveOptions, type RunOptions } from '../../harness/setup/config.ts'
import { Redactor } from '../../harness/redact.ts'
import { embeddedChoices, newRunId, prepareTarget, type PreparedTarget } from '../../harness/setup/target.ts'
import { defaultWorkers } from '../engine/workers.ts'
import { jsonGetter, type PlanContext } from '../profiles/profile.ts'
import { SPREAD_HEAD, spreadRows } from '../report/spread.ts'
import { columns } from '../report/compare.ts'
import { runProfile } from '../runner.ts'
import type { KeySlotName, LoadResult } from '../types.ts'
import type { Flags } from './flags.ts'
import { type CliIo, interruptHandler, type Output, outputOf } from './output.ts'
import { verdictTable, writeRepeats, writeReport } from './reports.ts'
import { checkRemote, type Embedded, readEmbedded, readSettings, type Settings } from './settings.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string }

/** The run of --profile: the exit code of its verdicts. */
export async function runFromFlags(profileName: string, flags: Flags, io: CliIo): Promise<number> {
  const settings = readSettings(profileName, flags)
  const embedded = readEmbedded(flags, await embeddedChoices())
  const options = resolveOptions(
    loadEnv(io.env),
    { ...(flags['base-url'] ? { 'base-url': flags['base-url'] } : {}) },
    [],
    [],
  )
  if (options.baseUrl !== null) checkRemote(options.baseUrl, embedded, flags['confirm-target'])
  const runId = newRunId()
  const minuteMs = embedded.minuteMs ?? (options.baseUrl === null ? DEFAULTS.embeddedMinuteMs : DEFAULTS.realMinuteMs)
  const target = await prepareTarget(options, runId, {
    minuteMs,
    ...(embedded.limiter ? { limiter: embedded.limiter } : {}),
    ...(embedded.routeLimits.length > 0 ? { routeLimits: embedded.routeLimits } : {}),
  })
  const keys = target.config.keys as Partial<Record<KeySlotName, string>>
  const redactor = new Redactor(keys)
  const out = outputOf(io, redactor)
  const stop = new AbortController()
  const onSignal = interruptHandler(stop, out.say)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const ctx = contextOf(settings, embedded, options, target, minuteMs, runId)
    const repeats = await runRepeats(settings, embedded, ctx, runId, stop.signal, out)
    out.clear()
    const reportRoot = flags['report-dir'] ?? DEFAULTS.reportDir
    const { merged: result, dir } =
      settings.repeat === 1
        ? { merged: repeats[0] as LoadResult, dir: await writeReport(repeats[0] as LoadResult, reportRoot) }
        : await writeRepeats(repeats, runId, reportRoot)
    io.stdout(`${redactor.text(verdictTable(result))}${spreadOf(result, dir)}\n\n${endLine(result)}. Report: ${dir}\n`)
    return result.exitCode
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await target.close()
  }
}

/** What every phase's plan is made against: the target, its keys and minute, and the settings of the flags. */
function contextOf(
  settings: Settings,
  embedded: Embedded,
  options: RunOptions,
  target: PreparedTarget,
  minuteMs: number,
  runId: string,
): PlanContext {
  const keys = target.config.keys as Partial<Record<KeySlotName, string>>
  return {
    baseUrl: target.config.baseUrl,
    embedded: target.config.embedded,
    minuteMs,
    ...(embedded.limiter ? { limiter: embedded.limiter } : {}),
    keys,
    models: options.models,
    limits: settings.limits,
    tier: settings.tier,
    durationMs: settings.durationMs,
    rate: settings.rate,
    connections: settings.connections,
    workers: settings.workers ?? defaultWorkers(target.config.embedded),
    arrival: settings.arrival,
    ramp: settings.ramp,
    seed: settings.seed,
    seedGiven: settings.seedGiven,
    timeoutMs: options.timeoutMs,
    runId,
    getJson: jsonGetter(target.config.baseUrl, keys, options.timeoutMs),
  }
}

/** Each figure's spread across the repeats, when there were any. */
function spreadOf(result: LoadResult, dir: string): string {
  if (!result.repeats) return ''
  const rows = columns([SPREAD_HEAD, ...spreadRows(result)])
  return `\n\nSpread over ${result.repeats.count} repeats (each in ${dir}/repeat-N):\n${rows}`
}

/** The outcome and exit code, and why a run that stopped early is partial. */
function endLine(result: LoadResult): string {
  const partial = result.partial ? `, partial: ${result.stopReason ?? 'not every phase ran'}` : ''
  return `${result.outcome.toUpperCase()} (exit ${result.exitCode})${partial}`
}

/** The line that opens each repeat: the profile, the target, the seed and the phases planned. */
function opening(settings: Settings, embedded: Embedded, ctx: PlanContext, n: number, phases: string): string {
  const { profile, repeat, shard, seed } = settings
  const limiter = embedded.limiter ? `, ${embedded.limiter}` : ''
  const routeLimits = embedded.routeLimits.length > 0 ? `, --route-limit ${embedded.routeLimits.join(' ')}` : ''
  const target = ctx.embedded ? ` (embedded reference gateway, ${ctx.minuteMs} ms minute${limiter}${routeLimits})` : ''
  const slice = shard ? `, shard ${shard.index}/${shard.count}` : ''
  const of = repeat > 1 ? `, repeat ${n} of ${repeat}` : ''
  return `${profile.name} against ${ctx.baseUrl}${target}${slice}, seed ${seed}: ${phases}; run ${ctx.runId}${of}`
}

/** The profile run --repeat times; a stopped repeat ends the run, and the repeats so far are reported as partial. */
async function runRepeats(
  settings: Settings,
  embedded: Embedded,
  ctx: PlanContext,
  runId: string,
  signal: AbortSignal,
  out: Output,
): Promise<LoadResult[]> {
  const { profile, repeat, shard } = settings
  const repeats: LoadResult[] = []
  while (repeats.length < repeat && !repeats.some((r) => r.partial) && !signal.aborted) {
    const n = repeats.length + 1
    repeats.push(
      await runProfile({
        profile,
        context: ctx,
        runId: repeat === 1 ? runId : `${runId}-repeat-${n}`,
        shard,
        phases: settings.phases,
        signal,
        toolVersion: PACKAGE.version,
        objectives: settings.objectives,
        abortOnFail: settings.abortOnFail,
        progress: out.progress,
        planned: (plans) => out.say(opening(settings, embedded, ctx, n, plans.map((p) => p.name).join(', '))),
        note: (line) => {
          out.clear()
          out.say(line)
        },
      }),
    )
  }
  return repeats
}
