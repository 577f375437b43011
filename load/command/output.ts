/** Where the command writes: stdout for the verdicts, stderr for what it says while it runs, redacted on the way. */
import type { Redactor } from '../../harness/redact.ts'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: NodeJS.ProcessEnv
}

export const PROCESS_IO: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
}

export interface Output {
  /** Wipes the progress line on a terminal, so that the next line starts clean. */
  clear: () => void
  /** A line of its own, redacted. */
  say: (line: string) => void
  /** The progress line: rewritten in place on a terminal, else every 5 s. */
  progress: (line: string) => void
}

export function outputOf(io: CliIo, redactor: Redactor): Output {
  const say = (line: string): void => {
    io.stderr(`${redactor.text(line)}\n`)
  }
  const interactive = io === PROCESS_IO && process.stderr.isTTY === true
  let lastProgress = 0
  const progress = (line: string): void => {
    if (interactive) io.stderr(`\r\x1b[K${redactor.text(line)}`)
    else if (Date.now() - lastProgress >= 5000) {
      lastProgress = Date.now()
      say(line)
    }
  }
  const clear = (): void => {
    if (interactive) io.stderr('\r\x1b[K')
  }
  return { clear, say, progress }
}

/** Ctrl-C once stops the run with what was measured; twice quits at once. */
export function interruptHandler(stop: AbortController, say: (line: string) => void): (signal: NodeJS.Signals) => void {
  let interrupted = 0
  return (signal) => {
    interrupted += 1
    if (interrupted > 1) process.exit(130)
    say(`\n${signal}: stopping; the report will hold what was measured so far (press again to quit at once)`)
    stop.abort(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `interrupted (${signal})`)
  }
}
