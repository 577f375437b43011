/**
 * Every requirement rests on the reference's own words: its `quote` is found verbatim in the reference documents,
 * and no MUST rests on words that only give a sample, an observation or a shape the reference does not show.
 * The documents are read from GATEWAY_REFERENCE_DIR, or from ../shared/spec beside the repository; where neither is
 * at hand (a clone on its own), the verbatim check skips and says so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { requirements } from '../../../harness/requirements.ts'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const REFERENCE_DIR_ENV = 'GATEWAY_REFERENCE_DIR'
const referenceDir = resolve(process.env[REFERENCE_DIR_ENV] ?? join(ROOT, '..', 'shared', 'spec'))
const documents = existsSync(referenceDir)
  ? readdirSync(referenceDir)
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(referenceDir, name), 'utf8'))
  : []

/** Markdown emphasis and code marks, and line breaks, are typography, not words. */
function normalise(text: string): string {
  return text.replace(/[*`]/g, '').replace(/\s+/g, ' ').trim()
}

/** A quote of several excerpts joins them with " … ". */
function excerpts(quote: string): string[] {
  return quote
    .split(' … ')
    .map(normalise)
    .filter((e) => e.length > 0)
}

/** Words that mark a sample, an observation or an unshown shape: never the ground of a MUST. */
const NOT_A_RULE = [/sample form/i, /\bobserved\b/i, /\bgenerally\b/i, /\be\.g\./i, /not shown/i, /\babout \d/i]

const all = [...requirements().values()]

describe('the quotes of the requirement catalogue', () => {
  test('every requirement quotes the words it rests on', () => {
    expect(all.filter((r) => (r.quote ?? '').trim().length < 8).map((r) => r.id)).toEqual([])
  })

  test.skipIf(documents.length === 0)(
    `every quote is found verbatim in the reference (${REFERENCE_DIR_ENV} or ../shared/spec)`,
    () => {
      const text = normalise(documents.join('\n'))
      const missing = all.flatMap((r) =>
        excerpts(r.quote ?? '')
          .filter((e) => !text.includes(e))
          .map((e) => `${r.id}: "${e}"`),
      )
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
