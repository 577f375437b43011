/**
 * wrk, the C yardstick beside autocannon: found on PATH, or installed with Debian's apt-get when the bench runs as
 * root on a machine that has it (a CI runner, a container); otherwise the bench says how to install it.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { waitForExit } from './children.ts'

export const HOW_TO_INSTALL_WRK = 'apt-get install wrk (Debian, Ubuntu), brew install wrk (macOS)'

/** wrk's path on PATH, or null. */
export function findWrk(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, 'wrk')
    if (dir !== '' && existsSync(path)) return path
  }
  return null
}

async function run(command: string, args: string[], ms: number): Promise<boolean> {
  const child = spawn(command, args, { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  const exit = await waitForExit(child, ms)
  if (exit === null) child.kill('SIGKILL')
  return exit?.code === 0
}

/** wrk's path, installing it first when it is absent and it can (root and apt-get); null when it cannot. */
export async function ensureWrk(say: (line: string) => void): Promise<string | null> {
  const found = findWrk()
  if (found !== null) return found
  const apt = ['/usr/bin/apt-get', '/bin/apt-get'].find((p) => existsSync(p))
  if (apt === undefined || process.getuid?.() !== 0) return null
  say('wrk is not installed: apt-get install -y wrk')
  if (!(await run(apt, ['install', '-y', '-q', 'wrk'], 180_000))) {
    // A fresh image has no package lists yet.
    await run(apt, ['update', '-q'], 180_000)
    await run(apt, ['install', '-y', '-q', 'wrk'], 180_000)
  }
  return findWrk()
}
