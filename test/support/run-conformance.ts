/**
 * Runs `scripts/conformance.ts` as a user would, in a child process with a clean environment and a scratch
 * working folder (so a developer's .env cannot leak in), and reads back what it wrote.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Summary } from '../../harness/report/summary.ts'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SCRIPT = join(ROOT, 'scripts/conformance.ts')

export interface ConformanceRun {
  exitCode: number
  stdout: string
  stderr: string
  reportRoot: string
  summary?: Summary
  cleanup: () => void
}

export async function runConformance(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 400_000,
): Promise<ConformanceRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'gc-run-'))
  const reportRoot = join(cwd, 'reports')
  // Only what a run needs from the parent environment; no GATEWAY_* variable of the developer's.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('VITEST')),
  )
  const child = spawn(process.execPath, [SCRIPT, '--report-dir', reportRoot, ...args], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  clearTimeout(timer)
  let summary: Summary | undefined
  try {
    summary = JSON.parse(readFileSync(join(reportRoot, 'latest', 'summary.json'), 'utf8')) as Summary
  } catch {
    summary = undefined
  }
  return {
    exitCode,
    stdout,
    stderr,
    reportRoot,
    ...(summary ? { summary } : {}),
    cleanup: () => rmSync(cwd, { recursive: true, force: true }),
  }
}

/** Runs the command, hands the result to `fn`, and removes the scratch folder whatever `fn` does. */
export async function withRun<T>(
  args: string[],
  env: Record<string, string>,
  fn: (run: ConformanceRun) => T | Promise<T>,
): Promise<T> {
  const run = await runConformance(args, env)
  try {
    return await fn(run)
  } finally {
    run.cleanup()
  }
}

/** Environment variables for a set of keys, named as the configuration contract names them. */
export function keyEnv(keys: Record<string, string>, names: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(keys).map(([slot, value]) => [names[slot] as string, value]))
}

/**
 * GATEWAY_MODELS for what a reference gateway's model list cannot show (its audio chat model), as a user names a
 * target's: an embedded run gets it from the gateway itself, a run given a base URL must be told.
 */
export function modelsEnv(models: Readonly<Record<string, string>>): Record<string, string> {
  const pairs = Object.entries(models).map(([capability, id]) => `${capability}=${id}`)
  return pairs.length === 0 ? {} : { GATEWAY_MODELS: pairs.join(',') }
}

/** A tiny semaphore: child conformance runs are CPU-heavy, and this machine has two cores. */
export function limiter(concurrency: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0
  const queue: Array<() => void> = []
  return async (fn) => {
    if (active >= concurrency) await new Promise<void>((resolve) => queue.push(resolve))
    active += 1
    try {
      return await fn()
    } finally {
      active -= 1
      queue.shift()?.()
    }
  }
}
