/** The load harness reads a reset header in every form the reference allows (Part 1 §4.1 gives one as a sample). */
import { expect, test } from 'vitest'
import { readBucket } from '../../load/engine/rate-headers.ts'

const headers = (reset: string) => ({
  'x-ratelimit-limit-requests': '60',
  'x-ratelimit-remaining-requests': '59',
  'x-ratelimit-reset-requests': reset,
})

test.each([
  ['1s', 1000],
  ['6m0s', 360_000],
  ['12.5s', 12_500],
  ['20ms', 20],
  ['0.75', 750],
  ['42', 42_000],
])('reset %s is %d ms until reset', (reset, ms) => {
  expect(readBucket(headers(reset), 'requests')).toMatchObject({ resetMs: ms, unparsable: false })
})

test('a Unix time or words are no time until reset: unparsable, which the headers verdict counts', () => {
  for (const reset of ['1795000000', 'soon'])
    expect(readBucket(headers(reset), 'requests')).toMatchObject({ resetMs: null, unparsable: true })
})
