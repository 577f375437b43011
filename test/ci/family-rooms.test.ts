/**
 * One room per endpoint family in every part (ARCHITECTURE.md, "A new endpoint family"): every family of the
 * requirement catalogue has its suites, its faults, its schemas and its routes, found from its name, and every
 * room of those parts belongs to a family. A family forgotten in one part fails here, not in a reader's head.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { FAULT_FAMILIES } from '../../gateway/faults/registry.ts'
import { requirements } from '../../harness/requirements.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Families that judge what every route does: no routes of their own, but the hook that does it; their faults are
 * in gateway/hooks/ too, as <family>-faults.ts.
 */
const HOOKED: Readonly<Record<string, string>> = {
  headers: 'gateway/hooks/request-id.ts',
  auth: 'gateway/hooks/auth.ts',
  tiers: 'gateway/hooks/rate-limit.ts',
}

/**
 * Phases that judge the routes of every family from their request schemas: a suite folder and catalogue entries of
 * their own, but no faults, schemas or routes (the families' faults and routes are what they judge).
 */
const PHASES: Readonly<Record<string, string>> = {
  generated: 'requests generated from the request schemas of every family (suites/generated/)',
}

/** Families whose bodies are other families' shapes or the limit tables: no schemas/<family>/ of their own. */
const NO_SCHEMAS: Readonly<Record<string, string>> = {
  headers: 'headers only; their formats are in the suites',
  tiers: 'the limit tables of schemas/limits/',
  compatible: "the compatible list's and errors' shapes of schemas/common/",
}

/** Folders of those parts that are not families: what several families share, and the reports' and config's schemas. */
const NOT_FAMILIES = new Set(['shared', 'common', 'config', 'limits', 'load', 'reference', 'report'])
/** The gateway's parts that serve every family: its hooks, the fault registry and layers, its simulated generation. */
const GATEWAY_PARTS = new Set(['hooks', 'faults', 'simulate'])

const families = [...new Set([...requirements().values()].map((r) => r.family))].sort()
const endpointFamilies = families.filter((family) => !(family in PHASES))
const folders = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_FAMILIES.has(entry.name))
    .map((entry) => entry.name)

test('every family of the catalogue has suites, faults, schemas and routes under its name', () => {
  const server = readFileSync(join(ROOT, 'gateway/server.ts'), 'utf8')
  const missing = endpointFamilies.flatMap((family) => {
    const suites = existsSync(join(ROOT, 'suites', family))
      ? readdirSync(join(ROOT, 'suites', family)).filter((name) => name.endsWith('.test.ts'))
      : []
    const routes = HOOKED[family] ?? `gateway/${family}/routes.ts`
    const faults = family in HOOKED ? `gateway/hooks/${family}-faults.ts` : `gateway/${family}/faults.ts`
    return [
      suites.length === 0 ? `suites/${family}/*.test.ts` : [],
      existsSync(join(ROOT, faults)) ? [] : faults,
      family in NO_SCHEMAS || existsSync(join(ROOT, 'schemas', family)) ? [] : `schemas/${family}/`,
      existsSync(join(ROOT, routes)) ? [] : routes,
      family in HOOKED || server.includes(`'./${family}/routes.ts'`) ? [] : `${family} registered in gateway/server.ts`,
    ].flat()
  })
  expect(missing).toEqual([])
  expect([...FAULT_FAMILIES].sort()).toEqual(endpointFamilies)
  // The registry and the shared layers stay in gateway/faults/; a family's faults there would be out of its room.
  expect(
    readdirSync(join(ROOT, 'gateway/faults')).filter((name) => families.includes(name.replace(/\.ts$/, ''))),
  ).toEqual([])
})

test('every family folder of suites/, schemas/ and gateway/ is a family of the catalogue', () => {
  const strays = [
    ...folders('suites').map((name) => `suites/${name}`),
    ...folders('schemas').map((name) => `schemas/${name}`),
    ...folders('gateway')
      .filter((name) => !GATEWAY_PARTS.has(name))
      .map((name) => `gateway/${name}`),
  ].filter((path) => !families.includes(path.split('/')[1] as string))
  expect(strays).toEqual([])
})
