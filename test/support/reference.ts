/**
 * The reference documents as the quote tests read them: from GATEWAY_REFERENCE_DIR, or from ../shared/spec beside
 * the repository; empty where neither is at hand (a clone on its own), and the verbatim checks then skip.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ROOT } from './run-conformance.ts'

export const REFERENCE_DIR_ENV = 'GATEWAY_REFERENCE_DIR'
const referenceDir = resolve(process.env[REFERENCE_DIR_ENV] ?? join(ROOT, '..', 'shared', 'spec'))

export const referenceDocuments: readonly string[] = existsSync(referenceDir)
  ? readdirSync(referenceDir)
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(referenceDir, name), 'utf8'))
  : []

/** Markdown emphasis and code marks, and line breaks, are typography, not words. */
export function normalise(text: string): string {
  return text.replace(/[*`]/g, '').replace(/\s+/g, ' ').trim()
}

/** A quote of several excerpts joins them with " … ". */
export function excerpts(quote: string): string[] {
  return quote
    .split(' … ')
    .map(normalise)
    .filter((e) => e.length > 0)
}

/** The excerpts of a quote that the reference does not hold verbatim. */
export function missingExcerpts(quote: string): string[] {
  const text = referenceText()
  return excerpts(quote).filter((e) => !text.includes(e))
}

let joined: string | undefined
function referenceText(): string {
  joined ??= normalise(referenceDocuments.join('\n'))
  return joined
}
