/** A child process run to its end: its exit code (-1 when a signal ended it) and all it printed. */
import { spawn } from 'node:child_process'

export interface ChildRun {
  code: number
  stdout: string
  stderr: string
}

export function runChild(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}
