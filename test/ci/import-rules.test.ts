/**
 * The arrows of ARCHITECTURE.md, checked: each part imports only the parts it may, so a wrong arrow fails npm test
 * rather than waiting for a reader to notice. Static and dynamic imports alike; type-only imports too, since a type
 * from the gateway in a suite would tie the suite to one implementation of the reference.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Which top-level parts each part may import (its own always). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  common: [],
  schemas: [],
  harness: ['common', 'schemas'],
  suites: ['harness', 'common', 'schemas'],
  load: ['harness', 'common', 'schemas'],
  gateway: ['common', 'schemas'],
  proof: ['harness', 'gateway', 'common', 'schemas'],
  scripts: ['harness', 'suites', 'load', 'gateway', 'proof', 'common', 'schemas'],
}

/** The one arrow against the grain: with no base URL, the run starts the reference gateway through its entry point. */
const EXCEPTIONS = new Set(['harness/setup/target.ts -> gateway/embedded.ts'])

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path)
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : []
  })
}

const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g

test('every import follows the arrows of ARCHITECTURE.md', () => {
  const wrong: string[] = []
  for (const [part, allowed] of Object.entries(MAY_IMPORT)) {
    for (const file of tsFiles(part)) {
      // Comments may show an import as an example; only code imports.
      const text = readFileSync(join(ROOT, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '')
      for (const match of text.matchAll(SPECIFIER)) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), match[1] as string))
        const targetPart = target.split('/')[0] as string
        const arrow = `${file} -> ${target}`
        if (targetPart === part || allowed.includes(targetPart) || EXCEPTIONS.has(arrow)) continue
        wrong.push(arrow)
      }
    }
  }
  expect(wrong).toEqual([])
})

test('the rule is live: a file of each part is read, and a forbidden arrow would be seen', () => {
  for (const part of Object.keys(MAY_IMPORT).filter((p) => p !== 'schemas'))
    expect(tsFiles(part).length).toBeGreaterThan(0)
  const probe = "import { x } from '../gateway/state.ts'\nconst y = await import('../../load/runner.ts')"
  expect([...probe.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../gateway/state.ts', '../../load/runner.ts'])
})
