/**
 * The reference gateway in a child process (scripts/gateway.ts), for the benchmarks where gateway and generator
 * must not share one event loop: a generator that measures itself against a target on its own thread measures
 * the sum of both.
 */
import type { ChildProcess } from 'node:child_process'
import { procStatusKb, spawnNodeScript, stopChild } from './children.ts'

const CHILD_GATEWAY = {
  startTimeoutMs: 30_000, // the gateway's TypeScript is compiled on start; on a busy two-core machine that takes seconds
}

export interface ChildGateway {
  url: string
  pid: number
  /** Seeded keys by the environment variable that carries them (GATEWAY_API_KEY, GATEWAY_API_KEY_TIER5, ...). */
  keys: Record<string, string>
  /** Peak RSS so far in kB (VmHWM), null once the process is gone: read it before close(). */
  peakRssKb(): number | null
  close(): Promise<void>
}

/**
 * Reads the banner the gateway command (gateway/command.ts) prints: the URL line, then one line per seeded key
 * ending in its value.
 */
function parseBanner(text: string): { url: string; keys: Record<string, string> } | null {
  if (!text.includes('Stop with Ctrl-C.')) return null
  const url = /listening on (http:\/\/\S+)/.exec(text)?.[1]
  if (url === undefined) return null
  const keys: Record<string, string> = {}
  for (const match of text.matchAll(/^\s+(GATEWAY_[A-Z0-9_]+)\s.*\s(sk-\S+)\s*$/gm))
    keys[match[1] as string] = match[2] as string
  return { url, keys }
}

export async function startChildGateway(options: { minuteMs: number }): Promise<ChildGateway> {
  const child: ChildProcess = spawnNodeScript('scripts/gateway.ts', [
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--minute-ms',
    String(options.minuteMs),
  ])
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  // Keep draining both pipes for the child's whole life: a full pipe would block the gateway's writes.
  child.stdout?.on('data', (chunk: string) => {
    if (stdout.length < 64 * 1024) stdout += chunk
  })
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk
  })
  try {
    const banner = await new Promise<{ url: string; keys: Record<string, string> }>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          done(
            new Error(
              `the gateway child printed no URL within ${CHILD_GATEWAY.startTimeoutMs} ms: ${stderr.trim() || stdout.trim()}`,
            ),
          ),
        CHILD_GATEWAY.startTimeoutMs,
      )
      const check = (): void => {
        const parsed = parseBanner(stdout)
        if (parsed) done(null, parsed)
      }
      const onExit = (code: number | null): void =>
        done(new Error(`the gateway child exited (${code}) before listening: ${stderr.trim()}`))
      function done(error: Error | null, value?: { url: string; keys: Record<string, string> }): void {
        clearTimeout(timer)
        child.stdout?.off('data', check)
        child.off('exit', onExit)
        if (error) reject(error)
        else resolve(value as { url: string; keys: Record<string, string> })
      }
      child.stdout?.on('data', check)
      child.once('exit', onExit)
      check()
    })
    const pid = child.pid as number
    return { ...banner, pid, peakRssKb: () => procStatusKb(pid, 'VmHWM'), close: () => stopChild(child) }
  } catch (error) {
    await stopChild(child)
    throw error
  }
}
