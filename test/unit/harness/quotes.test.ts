/**
 * Every requirement rests on the reference's own words: its `quote` is found verbatim in the reference documents,
 * and no MUST rests on words that only give a sample, an observation or a shape the reference does not show.
 * The documents are read from GATEWAY_REFERENCE_DIR, or from ../shared/spec beside the repository; where neither is
 * at hand (a clone on its own), the verbatim check skips and says so.
 */
import { describe, expect, test } from 'vitest'
import { requirements } from '../../../harness/requirements.ts'
import { missingExcerpts, REFERENCE_DIR_ENV, referenceDocuments } from '../../support/reference.ts'

/** Words that mark a sample, an observation or an unshown shape: never the ground of a MUST. */
const NOT_A_RULE = [/sample form/i, /\bobserved\b/i, /\bgenerally\b/i, /\be\.g\./i, /not shown/i, /\babout \d/i]

const all = [...requirements().values()]

describe('the quotes of the requirement catalogue', () => {
  test('every requirement quotes the words it rests on', () => {
    expect(all.filter((r) => (r.quote ?? '').trim().length < 8).map((r) => r.id)).toEqual([])
  })

  test.skipIf(referenceDocuments.length === 0)(
    `every quote is found verbatim in the reference (${REFERENCE_DIR_ENV} or ../shared/spec)`,
    () => {
      const missing = all.flatMap((r) => missingExcerpts(r.quote ?? '').map((e) => `${r.id}: "${e}"`))
      expect(missing).toEqual([])
    },
  )

  test('no MUST rests on words that give a sample, an observation or a shape not shown', () => {
    const loose = all
      .filter((r) => r.level === 'MUST')
      .flatMap((r) =>
        NOT_A_RULE.filter((marker) => marker.test(r.quote ?? '')).map((marker) => `${r.id}: ${marker.source}`),
      )
    expect(loose).toEqual([])
  })
})
