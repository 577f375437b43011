/**
 * Levels held to their words: every entry has a kind, and a MUST asks no more than its quote states. A MUST refusal
 * rests on words that state a refusal or its status; a MUST timing on words that give a time; and no check of a
 * MUST asserts one exact status that its quote does not name (§7 gives the class: "2xx success"). Where the words
 * state the rule in a way these tests cannot read, the entry says so in `levelNote`, so every exception is visible
 * in the catalogue itself.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { KINDS, type Requirement, requirements } from '../../../harness/requirements.ts'
import { filesUnder } from '../../support/files.ts'
import { ROOT } from '../../support/run-conformance.ts'
import { checkBodies, exactStatuses, quoteStatesRefusal, quoteStatesTime } from './levels-scan.ts'

const all = [...requirements().values()]
const must = all.filter((r) => r.level === 'MUST' && r.untestable === undefined)
const excused = (r: Requirement): boolean => (r.levelNote ?? '').trim().length >= 20

describe('every entry has a kind', () => {
  test('the kind is one of the documented set', () => {
    expect(all.filter((r) => !KINDS.includes(r.kind)).map((r) => `${r.id}: ${String(r.kind)}`)).toEqual([])
  })

  test('a levelNote, on a MUST only, says why in words', () => {
    const idle = all.filter((r) => r.levelNote !== undefined && (!excused(r) || r.level !== 'MUST'))
    expect(idle.map((r) => r.id)).toEqual([])
  })
})

const checks = checkBodies(
  filesUnder(join(ROOT, 'suites'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ path: f, text: readFileSync(f, 'utf8') })),
)

describe('a MUST asks no more than its words', () => {
  test('a MUST refusal quotes words that state the refusal or its status', () => {
    const unstated = must.filter((r) => r.kind === 'refusal' && !excused(r) && !quoteStatesRefusal(r.quote ?? ''))
    expect(
      unstated.map((r) => r.id),
      'split into an acceptance (MUST) and a refusal (SHOULD, with why), or say in levelNote why the words state it',
    ).toEqual([])
  })

  test('a MUST timing quotes words that give a time', () => {
    const unstated = must.filter((r) => r.kind === 'timing' && !excused(r) && !quoteStatesTime(r.quote ?? ''))
    expect(unstated.map((r) => r.id)).toEqual([])
  })

  test('no check of a MUST asserts one exact status its quote does not name', () => {
    const known = new Set(checks.keys())
    expect(known.size).toBeGreaterThan(200)
    const strict = must.flatMap((r) => {
      if (excused(r)) return []
      const quote = r.quote ?? ''
      const unnamed = new Set(
        (checks.get(r.id) ?? []).flatMap(exactStatuses).filter((status) => !new RegExp(`\\b${status}\\b`).test(quote)),
      )
      return [...unnamed].map((status) => `${r.id}: exactly ${status}`)
    })
    expect(strict, 'accept the class §7 states (expectSuccess), or name the status the words give').toEqual([])
  })
})
