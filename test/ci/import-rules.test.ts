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
  bench: ['harness', 'load', 'gateway', 'common', 'schemas'],
  scripts: ['harness', 'suites', 'load', 'gateway', 'proof', 'bench', 'common', 'schemas'],
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

/** The files a file imports by relative path, from the repository's root; comments may show an import as an example. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
  return [...text.matchAll(SPECIFIER)].map((match) => relative(ROOT, resolve(ROOT, dirname(file), match[1] as string)))
}

test('every import follows the arrows of ARCHITECTURE.md', () => {
  const wrong: string[] = []
  for (const [part, allowed] of Object.entries(MAY_IMPORT)) {
    for (const file of tsFiles(part)) {
      for (const target of importsOf(file)) {
        const targetPart = target.split('/')[0] as string
        const arrow = `${file} -> ${target}`
        if (targetPart === part || allowed.includes(targetPart) || EXCEPTIONS.has(arrow)) continue
        wrong.push(arrow)
      }
    }
  }
  expect(wrong).toEqual([])
})

/**
 * The import circles of a graph: its strongly connected components of more than one file (or a file that imports
 * itself), by Tarjan's algorithm, each as its files sorted.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file) as number)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, index.get(next) as number))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string | undefined
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

// Every part of the table, suites included: in a circle no file can be read, tested or moved alone. Type-only imports
// count, since a loop hidden behind `import type` is still a loop for a reader.
test('no import circle in any part', () => {
  const graph = new Map(
    Object.keys(MAY_IMPORT)
      .flatMap(tsFiles)
      .map((file) => [file, importsOf(file)] as const),
  )
  expect(
    circles(graph).map((files) => `${files.join(', ')}; one loop: ${loopThrough(graph, files).join(' -> ')}`),
  ).toEqual([])
})

/** The shortest loop from a circle's first file back to it, within the circle: where a reader starts to cut it. */
function loopThrough(graph: ReadonlyMap<string, readonly string[]>, circle: readonly string[]): string[] {
  const start = circle[0] as string
  const inCircle = new Set(circle)
  const cameFrom = new Map<string, string>()
  const queue = [start]
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const next of graph.get(at) ?? []) {
      if (!inCircle.has(next) || cameFrom.has(next)) continue
      cameFrom.set(next, at)
      if (next === start) {
        const loop = [start]
        for (let back = at; back !== start; back = cameFrom.get(back) as string) loop.unshift(back)
        return [start, ...loop]
      }
      queue.push(next)
    }
  }
  return [...circle]
}

test('the circle search is live: it names the files of a circle and passes a tree', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
  ])
  expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']])
  expect(loopThrough(graph, ['a.ts', 'b.ts', 'c.ts'])).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts'])
  expect(loopThrough(graph, ['e.ts'])).toEqual(['e.ts', 'e.ts'])
  expect(
    circles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
  ).toEqual([])
})

test('the rule is live: a file of each part is read, and a forbidden arrow would be seen', () => {
  for (const part of Object.keys(MAY_IMPORT).filter((p) => p !== 'schemas'))
    expect(tsFiles(part).length).toBeGreaterThan(0)
  const probe = "import { x } from '../gateway/state.ts'\nconst y = await import('../../load/runner.ts')"
  expect([...probe.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../gateway/state.ts', '../../load/runner.ts'])
})
