/** A module the probe imports: vitest evaluates it again in a new thread only (a suite file is evaluated each run). */
let runs = 0

export function countRun(): number {
  runs += 1
  return runs
}
