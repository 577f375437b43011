/**
 * Which suite judged a gateway: the package's name and version, the git commit when it runs from a clone, and a
 * hash of the requirement catalogue, so that two reports can be told apart when the rules behind them differ.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Attribution {
  name: string
  version: string
  /** HEAD of the clone the suite ran from; null when it ran from an installed package. */
  commit: string | null
  /** SHA-256 of schemas/requirements.json as read by this run. */
  catalogueSha256: string
}

const cache = new Map<string, Attribution>()

function gitCommit(root: string): string | null {
  // A package installed from npm has no .git; git itself may be absent from a container.
  if (!existsSync(join(root, '.git'))) return null
  try {
    const out = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim()
    return /^[0-9a-f]{40,64}$/.test(out) ? out : null
  } catch {
    return null
  }
}

/** Read once per root: the fault runner builds hundreds of reports in one process. */
export function attribution(root: string, tool: { name: string; version: string }): Attribution {
  const key = `${root}\0${tool.name}\0${tool.version}`
  const known = cache.get(key)
  if (known) return known
  const catalogue = readFileSync(join(root, 'schemas', 'requirements.json'))
  const found: Attribution = {
    name: tool.name,
    version: tool.version,
    commit: gitCommit(root),
    catalogueSha256: createHash('sha256').update(catalogue).digest('hex'),
  }
  cache.set(key, found)
  return found
}

/** "gateway-conformance 0.2.0, commit 1a2b3c4d5e6f, catalogue sha256 9f8e7d6c5b4a": one line for people. */
export function attributionLine(tool: Partial<Attribution> & { name: string; version: string }): string {
  const commit = tool.commit ? `, commit ${tool.commit.slice(0, 12)}` : ''
  const catalogue = tool.catalogueSha256 ? `, catalogue sha256 ${tool.catalogueSha256.slice(0, 12)}` : ''
  return `${tool.name} ${tool.version}${commit}${catalogue}`
}

/** name=value pairs for JUnit properties and the Allure environment. */
export function attributionProperties(tool: Partial<Attribution>, asOf: string): Record<string, string> {
  return {
    ...(tool.name ? { 'suite.name': tool.name } : {}),
    ...(tool.version ? { 'suite.version': tool.version } : {}),
    ...(tool.commit ? { 'suite.commit': tool.commit } : {}),
    ...(tool.catalogueSha256 ? { 'catalogue.sha256': tool.catalogueSha256 } : {}),
    'as-of': asOf,
  }
}
