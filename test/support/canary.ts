/**
 * Canary keys: fresh random values that the reference gateway accepts as its seeded keys (keyAliases), so a
 * run can be made with keys no code has ever seen, and everything it wrote or printed searched for them. The
 * seeded keys are constants that a careless redactor could special-case; a canary cannot be.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SEEDED_KEY_ENV, SEEDED_KEYS, type SeededKeys } from '../../gateway/accounts.ts'

export interface Canaries {
  /** canary -> seeded key, for startEmbeddedGateway({ keyAliases }). */
  aliases: Record<string, string>
  /** GATEWAY_API_KEY, GATEWAY_API_KEY_TIER0..5, GATEWAY_SUSPENDED_API_KEY set to the canaries. */
  env: Record<string, string>
  values: string[]
}

export function canaryKeys(): Canaries {
  const aliases: Record<string, string> = {}
  const env: Record<string, string> = {}
  for (const slot of Object.keys(SEEDED_KEYS) as Array<keyof SeededKeys>) {
    const canary = `sk-canary-${slot}-${randomBytes(12).toString('hex')}`
    aliases[canary] = SEEDED_KEYS[slot]
    env[SEEDED_KEY_ENV[slot]] = canary
  }
  return { aliases, env, values: Object.keys(aliases) }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Where a canary (or any of `secrets`) appears: "file: <path>" or "<stream name>", empty when nowhere. */
export function leaks(secrets: readonly string[], reportDir: string, printed: Record<string, string>): string[] {
  const found: string[] = []
  for (const file of filesUnder(reportDir)) {
    const text = readFileSync(file).toString('latin1')
    if (secrets.some((s) => text.includes(s))) found.push(`file: ${file}`)
  }
  for (const [stream, text] of Object.entries(printed)) if (secrets.some((s) => text.includes(s))) found.push(stream)
  return found
}
