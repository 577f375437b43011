/**
 * Suite files share their worker and the modules it loaded (vitest.config.ts, isolate false), in the fault proof's
 * shared runs the files of one worker face different gateways, and its worker outlives a run
 * (harness/setup/kept-threads.ts). A helper module that kept what it learned of
 * the target in a module variable would hand one file's answers to the next: such state lives per file
 * (harness/worker/suite.ts perFile). This reads every suite helper module for top-level state that could hold it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../support/run-conformance.ts'
import { beginFile, perFile } from '../../../harness/worker/suite.ts'
import { currentExchanges, recordExchange } from '../../../harness/worker/recorder.ts'
import type { ExchangeExcerpt } from '../../../harness/exchange.ts'

/** Top-level state that holds nothing learned of a target, with the reason. */
const TARGET_FREE: Record<string, string> = {
  'suites/audio/forms.ts: cache': 'audio made from constants, the same for every target',
  'suites/shared/credit.ts: CREDIT_SETTLE': "a getter over the running file's own configuration; it keeps nothing",
}

/** Names of top-level declarations whose value can hold what a call to the target answered. */
function moduleState(source: string): string[] {
  const statements = source.split(/\n(?=\S)/)
  const found: string[] = []
  for (const statement of statements) {
    const declared = /^(?:export\s+)?(let|var|const)\s+(\w+)[^=]*(?:=\s*([\s\S]*))?$/.exec(statement)
    if (declared === null) continue
    const [, kind, name, value = ''] = declared as unknown as [string, string, string, string | undefined]
    if (kind !== 'const') {
      found.push(name)
      continue
    }
    if (/^perFile\(/.test(value)) continue
    // A function made at the top level holds nothing until called.
    if (/^(?:async\s+)?(?:function\b|\([^)]*\)[^=\n]*=>|\w+\s*=>)/.test(value)) continue
    // An empty collection is filled later; one made full is a lookup table.
    if (/\bnew\s+(?:Map|Set|Array)\b(?:<[^(]*>)?\(\)|\bmemo\(|\btarget\(\)|\brunConfig\(\)|^\[\s*\]/.test(value))
      found.push(name)
  }
  return found
}

function helperModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return helperModules(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('suite helper modules keep what they learn of the target per file', () => {
  test('the reader finds module variables, maps, memos and clients, and passes constants, functions and perFile', () => {
    const source = [
      "import { memo } from '../../../harness/worker/helpers.ts'",
      'let client: TargetClient | undefined',
      'const created = new Map<string, KeySlot>()',
      'const probes: Record<Form, () => Promise<Exchange>> = {',
      "  body: memo(() => search(target(), { tool: 'p1-search' })),",
      '}',
      'const api = target()',
      'const PRICES: Record<string, number> = { a: 1 }',
      "const TERMINAL = new Set(['response.completed'])",
      'export const NAMES = Object.keys(PRICES)',
      'const byFile = perFile(() => new Map<string, number>())',
      'export const list = (api: TargetClient) => memo(() => api.get("/v1/models"))',
      'export function models(api: TargetClient) {',
      '  const seen = new Map()',
      '  return seen',
      '}',
    ].join('\n')
    expect(moduleState(source)).toEqual(['client', 'created', 'probes', 'api'])
  })

  test('no suite helper module holds such state outside perFile', () => {
    const held = helperModules(join(ROOT, 'suites')).flatMap((path) =>
      moduleState(readFileSync(path, 'utf8'))
        .map((name) => `${relative(ROOT, path)}: ${name}`)
        .filter((entry) => !(entry in TARGET_FREE)),
    )
    expect(held).toEqual([])
  })
})

test('a file starts with nothing an earlier file learned or left unrecorded (suites/setup.ts calls beginFile)', () => {
  let made = 0
  const state = perFile(() => {
    made += 1
    return { made }
  })
  expect(state()).toBe(state())
  recordExchange({ method: 'GET', url: 'http://127.0.0.1:9/v1/models', path: '/v1/models' } as ExchangeExcerpt)
  beginFile()
  expect(state().made).toBe(2)
  expect(currentExchanges()).toEqual([])
})
