/**
 * Keeps durations.json, the order the self-tests start in (long-poles-first.ts), true: after a whole npm test
 * that passed, it writes the files' timings when one has moved enough to change that order (a file new or gone, or
 * one that took half again or half as long, and a minute apart; whole runs differ by 30 s in either direction), so
 * the file changes only when the order should.
 */
import { writeFileSync } from 'node:fs'
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { DURATIONS, type Durations, pathOf, readDurations } from './long-poles-first.ts'

function moved(before: number | undefined, after: number): boolean {
  if (before === undefined) return true
  return Math.abs(after - before) >= 60 && (after >= before * 1.5 || after <= before / 1.5)
}

export function keptDurations(old: Durations, now: Durations): Durations | undefined {
  const gone = Object.keys(old).some((path) => !(path in now))
  return gone || Object.entries(now).some(([path, s]) => moved(old[path], s)) ? now : undefined
}

export default class DurationsReporter implements Reporter {
  #vitest: Vitest | undefined

  onInit(vitest: Vitest): void {
    this.#vitest = vitest
  }

  async onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<unknown>,
    reason: TestRunEndReason,
  ): Promise<void> {
    if (reason !== 'passed' || errors.length > 0 || this.#vitest === undefined) return
    const self = this.#vitest.getProjectByName('self')
    const root = self.config.root
    const now: Durations = {}
    for (const m of modules.filter((m) => m.project.name === 'self'))
      now[pathOf(m.moduleId, root)] = Math.round(m.diagnostic().duration / 1000)
    // Only a whole run measures the order: a file run alone, or a few, take less time than beside the others.
    const { testFiles } = await self.globTestFiles()
    const all = testFiles.map((file) => pathOf(file, root)).sort()
    if (JSON.stringify(Object.keys(now).sort()) !== JSON.stringify(all)) return
    const sorted = Object.fromEntries(Object.entries(now).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)))
    const kept = keptDurations(readDurations(), sorted)
    if (kept !== undefined) writeFileSync(DURATIONS, `${JSON.stringify(kept, null, 2)}\n`)
  }
}
