/**
 * Preloaded (--import) into the generator child of the memory benchmark: prints the process's peak RSS as it
 * exits. Polling /proc from outside can miss the last half second, which is when the load command renders its
 * report, and once the process is gone its /proc entry is too.
 */
import { readFileSync } from 'node:fs'

process.on('exit', () => {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    if (kb !== undefined) process.stderr.write(`\nbench-peak-rss-kb ${kb}\n`)
  } catch {
    // No /proc: the bench falls back on what it polled.
  }
})
