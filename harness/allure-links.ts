/**
 * The link from an Allure test to the section of the reference it checks. The reference is two Markdown files,
 * gateway-api-part-1.md and gateway-api-part-2.md; a reader opens them where GATEWAY_REFERENCE_URL says they are
 * published (a folder URL), or else in the local copy beside the repository (../shared/spec/), which exists on a
 * developer's machine and in CI. The anchor is the one GitHub and most Markdown viewers give the heading.
 */
import { readFileSync } from 'node:fs'
import { citation, type Requirement } from './requirements.ts'

const REFERENCE_URL_ENV = 'GATEWAY_REFERENCE_URL'
/** The local copy of the reference, beside the repository. */
export const LOCAL_SPEC_DIR = new URL('../../shared/spec/', import.meta.url)

export function referenceFile(part: 1 | 2): string {
  return `gateway-api-part-${part}.md`
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens ("4.3 Models" -> "43-models"). */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** Section number ("4.3", "7") -> heading text, from the reference's `##` and `###` headings. */
export function headingsOf(markdown: string): Map<string, string> {
  const headings = new Map<string, string>()
  for (const line of markdown.split('\n')) {
    const match = /^#{2,3} ((\d+(?:\.\d+)?)\.? .*)$/.exec(line.trimEnd())
    if (match && !headings.has(match[2] as string)) headings.set(match[2] as string, match[1] as string)
  }
  return headings
}

const cache = new Map<1 | 2, Map<string, string>>()

function localHeadings(part: 1 | 2): Map<string, string> {
  let headings = cache.get(part)
  if (headings === undefined) {
    try {
      headings = headingsOf(readFileSync(new URL(referenceFile(part), LOCAL_SPEC_DIR), 'utf8'))
    } catch {
      headings = new Map() // no local copy (a vendor's checkout): links go to the file without an anchor
    }
    cache.set(part, headings)
  }
  return headings
}

/**
 * The URL of a requirement's section. A numbered rule inside a section ("9.4": rule 4 of section 9) has no heading
 * of its own, so it links to its section's heading.
 */
export function sectionUrl(req: Pick<Requirement, 'part' | 'section'>, base: string = process.env[REFERENCE_URL_ENV] ?? LOCAL_SPEC_DIR.href, headings: Map<string, string> = localHeadings(req.part)): string {
  const folder = base.endsWith('/') ? base : `${base}/`
  const heading = headings.get(req.section) ?? headings.get(req.section.split('.')[0] as string)
  return `${new URL(referenceFile(req.part), folder).href}${heading === undefined ? '' : `#${headingAnchor(heading)}`}`
}

/** The link as Allure shows it: "Part 1 §4.3" (and the sections it leans on) pointing at the section. */
export function referenceLink(req: Requirement): { url: string; name: string } {
  return { url: sectionUrl(req), name: citation(req) }
}
