/** durations.json changes only when the self-tests' order should: a file new or gone, or one moved far. */
import { expect, test } from 'vitest'
import { keptDurations } from '../../support/durations-reporter.ts'

const OLD = { 'test/a.test.ts': 400, 'test/b.test.ts': 100, 'test/c.test.ts': 5, 'test/d.test.ts': 36 }

test('small moves keep the file as it is', () => {
  // Two whole runs differ this much: 36 s one time, 65 s the next.
  const noise = { 'test/a.test.ts': 470, 'test/b.test.ts': 130, 'test/c.test.ts': 9, 'test/d.test.ts': 65 }
  expect(keptDurations(OLD, noise)).toBeUndefined()
})

test('a file half again as long and a minute apart, a new file or a gone one rewrites it', () => {
  const moved = { ...OLD, 'test/b.test.ts': 160 }
  expect(keptDurations(OLD, moved)).toEqual(moved)
  expect(keptDurations(OLD, { ...OLD, 'test/e.test.ts': 1 })).toEqual({ ...OLD, 'test/e.test.ts': 1 })
  const { 'test/d.test.ts': _gone, ...fewer } = OLD
  expect(keptDurations(OLD, fewer)).toEqual(fewer)
})
