/**
 * Child processes of the bench: spawned through here so that whatever happens to the bench (an error, a watchdog
 * exit, Ctrl-C) no gateway or generator is left running, and their memory read from /proc.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

const live = new Set<ChildProcess>()

// A finally block does not run when the bench is ended by process.exit (the watchdog) or a signal; this does.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

/**
 * `node <script>` as a direct child, as the npm scripts run it but with no npm in between (npm forks, and its pid
 * would not be the one whose memory counts).
 */
export function spawnNodeScript(
  script: string,
  args: readonly string[],
  options: SpawnOptions & { preload?: readonly string[] } = {},
): ChildProcess {
  const { preload = [], ...spawnOptions } = options
  const imports = preload.flatMap((module) => ['--import', module])
  const child = spawn(process.execPath, [...imports, script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...spawnOptions,
  })
  live.add(child)
  child.once('exit', () => live.delete(child))
  return child
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

/** Resolves with the exit code (or signal) once the child is gone, or null when it is still running after `timeoutMs`. */
export function waitForExit(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  if (exited(child)) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit)
      resolve(null)
    }, timeoutMs)
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer)
      resolve({ code, signal })
    }
    child.once('exit', onExit)
  })
}

/** SIGTERM, then SIGKILL if it has not gone within `graceMs`. Never throws, never waits longer than twice the grace. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (exited(child)) return
  child.kill('SIGTERM')
  if ((await waitForExit(child, graceMs)) !== null) return
  child.kill('SIGKILL')
  await waitForExit(child, graceMs)
}

/** Kilobytes of a /proc/<pid>/status field (VmRSS, VmHWM), or null once the process is gone. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** Decimal megabytes, as the project counts them (1 MB = 10^6 bytes). */
export const kbToMb = (kb: number): number => (kb * 1024) / 1e6

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux that Node supports (USER_HZ). */
const USER_HZ = 100

/** CPU time (user + system) a process has used so far in ms, or NaN once it is gone. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) / USER_HZ) * 1000
  } catch {
    return Number.NaN
  }
}
