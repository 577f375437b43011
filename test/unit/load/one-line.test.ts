/** An engine's or a worker's failure is one line: its message's first line and where it was thrown. */
import { describe, expect, test } from 'vitest'
import { oneLine } from '../../../load/engine/one-line.ts'

describe('a failure in one line', () => {
  test('a multi-line message keeps its first line and the place it was thrown', () => {
    const line = oneLine(new Error('load worker 1 of 2 exited (1) without its result\nmore\nand more'))
    expect(line).toMatch(/^load worker 1 of 2 exited \(1\) without its result \(at .+one-line\.test\.ts:\d+:\d+\)$/)
    expect(line).not.toContain('\n')
  })

  test('what is not an Error is its first line', () => {
    expect(oneLine('stopped\nby a signal')).toBe('stopped')
  })
})
