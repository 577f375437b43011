/**
 * Headless Chromium for the self-tests that must see a page as a browser draws it (the load report's charts, the
 * Allure report): `--dump-dom` prints the DOM after the page's scripts ran, so a test reads what they wrote.
 *
 * Every run gets a fresh profile and a hard deadline that kills the whole process group (Chromium forks a zygote,
 * a renderer and a crash handler, which outlive a killed parent otherwise).
 */
import { spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

export const CHROMIUM_MISSING = 'chromium not found: .ci/run installs it (apt-get install chromium)'

const DEFAULTS = {
  timeoutMs: 20_000,
  /** Virtual time runs ahead when the page is idle, so a budget costs little wall time; it bounds timers and load. */
  virtualTimeBudgetMs: 2_000,
}

/**
 * Flags that keep Chromium off the network and quiet: without the background-networking ones it dials Google's
 * services at start, and this machine's closed network refuses them (slowly, and loudly on stderr).
 */
const FLAGS = [
  '--headless',
  '--no-sandbox', // CI runs as root, where the sandbox refuses to start
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** CHROMIUM_PATH, then Debian's and Ubuntu's places, then `chromium` on PATH; null when there is none. */
export function findChromium(): string | null {
  const fixed = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  for (const path of fixed) if (path && isExecutable(path)) return path
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, 'chromium'))) return join(dir, 'chromium')
  }
  return null
}

interface DumpDomOptions {
  /** Wall-clock deadline for the whole browser run. */
  timeoutMs?: number
  virtualTimeBudgetMs?: number
  /** More flags, e.g. a window size for layout-dependent checks. */
  args?: string[]
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Loads a file (path) or URL in headless Chromium and returns the DOM after its scripts ran, as HTML. */
export async function dumpDom(fileOrUrl: string, opts: DumpDomOptions = {}): Promise<string> {
  const chromium = findChromium()
  if (!chromium) throw new Error(CHROMIUM_MISSING)
  const timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs
  const budget = opts.virtualTimeBudgetMs ?? DEFAULTS.virtualTimeBudgetMs
  const url = /^(file|https?|data|about):/i.test(fileOrUrl) ? fileOrUrl : pathToFileURL(resolve(fileOrUrl)).href
  const profile = mkdtempSync(join(tmpdir(), 'gc-chromium-'))
  const args = [
    ...FLAGS,
    `--user-data-dir=${profile}`,
    `--virtual-time-budget=${budget}`,
    ...(opts.args ?? []),
    '--dump-dom',
    url,
  ]
  // detached: its own process group, so that the deadline can kill every process Chromium started.
  const child = spawn(chromium, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killGroup(child.pid)
  }, timeoutMs)
  try {
    const code = await new Promise<number | null>((resolveExit, reject) => {
      child.once('error', reject)
      child.once('close', (exitCode) => resolveExit(exitCode))
    })
    const tail = stderr
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-5)
      .join('\n')
    if (timedOut) throw new Error(`chromium did not finish ${url} within ${timeoutMs} ms\n${tail}`)
    if (code !== 0 && stdout.trim() === '')
      throw new Error(`chromium exited with ${code} and printed no DOM for ${url}\n${tail}`)
    return stdout
  } finally {
    clearTimeout(timer)
    // A crash handler can outlive the browser it watched.
    killGroup(child.pid)
    rmSync(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 })
  }
}
