/** durations.json changes only when the self-tests' order should: a file new or gone, or one moved far. */
import { expect, test } from 'vitest'
import { keptDurations } from '../../support/durations-reporter.ts'

const OLD = { 'test/a.test.ts': 400, 'test/b.test.ts': 100, 'test/c.test.ts': 5 }

test('small moves keep the file as it is', () => {
  expect(keptDurations(OLD, { 'test/a.test.ts': 470, 'test/b.test.ts': 130, 'test/c.test.ts': 9 })).toBeUndefined()
})

test('a file half again as long and 20 s apart, a new file or a gone one rewrites it', () => {
  const moved = { 'test/a.test.ts': 400, 'test/b.test.ts': 150, 'test/c.test.ts': 5 }
  expect(keptDurations(OLD, moved)).toEqual(moved)
  expect(keptDurations(OLD, { ...OLD, 'test/d.test.ts': 1 })).toEqual({ ...OLD, 'test/d.test.ts': 1 })
  expect(keptDurations(OLD, { 'test/a.test.ts': 400, 'test/b.test.ts': 100 })).toBeDefined()
})
