/**
 * Canary keys: fresh random values that the reference gateway accepts as its seeded keys (keyAliases), so a
 * run can be made with keys no code has ever seen, and everything it wrote or printed searched for them. The
 * seeded keys are constants that a careless redactor could special-case; a canary cannot be.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { SEEDED_KEY_ENV, SEEDED_KEYS, type SeededKeys } from '../../gateway/account/accounts.ts'
import { filesUnder } from './files.ts'

interface Canaries {
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

/**
 * Where a canary (or any of `secrets`) appears: "file: <path>" or "<stream name>", empty when nowhere. `written`
 * is a folder searched at any depth, a file, or a list of them.
 */
export function leaks(
  secrets: readonly string[],
  written: string | readonly string[],
  printed: Record<string, string> = {},
): string[] {
  const found: string[] = []
  const files = (typeof written === 'string' ? [written] : written).flatMap((path) =>
    statSync(path).isDirectory() ? filesUnder(path) : [path],
  )
  for (const file of files) {
    const text = readFileSync(file).toString('latin1')
    if (secrets.some((s) => text.includes(s))) found.push(`file: ${file}`)
  }
  for (const [stream, text] of Object.entries(printed)) if (secrets.some((s) => text.includes(s))) found.push(stream)
  return found
}
