/**
 * Headless Chromium for the self-tests that must see a page as a browser draws it (the load report's charts, the
 * Allure report): `--dump-dom` prints the DOM after the page's scripts ran, so a test reads what they wrote; a page
 * that draws late, from data it loads, is read over the DevTools protocol until it is drawn (renderUntil).
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

/** An expression that threw in the page, as opposed to a protocol error. */
class PageError extends Error {}

/** What the DevTools protocol answers to one command of ours. */
interface CdpReply {
  id?: number
  result?: { result?: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }
  error?: { message: string }
}

/**
 * Loads a page in headless Chromium, asks it over the DevTools protocol whether `drawn` (a JavaScript expression,
 * evaluated in the page) holds yet, and once it does, or the deadline passed, returns its DOM. A page that draws from
 * data it reads after loading is read when drawn, not at the end of a virtual-time budget a busy machine can spend
 * first. The question is cheap on purpose: serialising a large page on every poll would starve its own drawing.
 */
export async function renderUntil(
  fileOrUrl: string,
  drawn: string,
  opts: { timeoutMs?: number; intervalMs?: number; args?: string[] } = {},
): Promise<string> {
  const chromium = findChromium()
  if (!chromium) throw new Error(CHROMIUM_MISSING)
  const timeoutMs = opts.timeoutMs ?? 60_000
  const deadline = Date.now() + timeoutMs
  const url = /^(file|https?|data|about):/i.test(fileOrUrl) ? fileOrUrl : pathToFileURL(resolve(fileOrUrl)).href
  const profile = mkdtempSync(join(tmpdir(), 'gc-chromium-'))
  const args = [...FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', ...(opts.args ?? []), url]
  const child = spawn(chromium, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  let socket: WebSocket | undefined
  try {
    // Chromium names its DevTools port on stderr once it listens.
    let port: string | undefined
    while (port === undefined) {
      port = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(stderr)?.[1]
      if (port !== undefined) break
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`chromium did not open DevTools for ${url}\n${stderr.slice(-500)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const pages = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
      type: string
      webSocketDebuggerUrl: string
    }>
    const page = pages.find((p) => p.type === 'page')
    if (!page) throw new Error(`chromium opened no page for ${url}`)
    const ws = new WebSocket(page.webSocketDebuggerUrl)
    socket = ws
    await new Promise<void>((ok, fail) => {
      ws.addEventListener('open', () => ok(), { once: true })
      ws.addEventListener('error', () => fail(new Error(`no DevTools connection for ${url}`)), { once: true })
    })
    let next = 0
    const evaluate = (expression: string): Promise<unknown> =>
      new Promise((ok, fail) => {
        next += 1
        const id = next
        const onMessage = (event: MessageEvent): void => {
          const reply = JSON.parse(String(event.data)) as CdpReply
          if (reply.id !== id) return
          ws.removeEventListener('message', onMessage)
          const thrown = reply.result?.exceptionDetails
          if (reply.error) fail(new Error(reply.error.message))
          else if (thrown) fail(new PageError(`${expression}: ${thrown.exception?.description ?? thrown.text}`))
          else ok(reply.result?.result?.value)
        }
        ws.addEventListener('message', onMessage)
        ws.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }))
      })
    const interval = opts.intervalMs ?? 500
    // The page may not have a document yet (the first load is still committing), so a question that throws is
    // asked again; one that still throws at the deadline is the test's mistake and fails it.
    const asks = async (): Promise<boolean> => {
      try {
        return Boolean(await evaluate(`Boolean(${drawn})`))
      } catch (error) {
        if (!(error instanceof PageError) || Date.now() + interval > deadline) throw error
        return false
      }
    }
    while (!(await asks()) && Date.now() + interval <= deadline) await new Promise((r) => setTimeout(r, interval))
    return String((await evaluate('document.documentElement?.outerHTML ?? ""')) ?? '')
  } finally {
    socket?.close()
    killGroup(child.pid)
    rmSync(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 })
  }
}
