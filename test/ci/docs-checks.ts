/**
 * What keeps the README and the pages under docs/ whole, as pure functions of their text: the headings a page
 * offers as anchors (GitHub's slugs), the relative links it makes, and the flags a command's --help defines.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a dash (github-slugger's rules). */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The text with fenced blocks blanked (their lines kept, so line numbers hold). */
function withoutFences(markdown: string): string {
  let fence: string | undefined
  return markdown
    .split('\n')
    .map((line) => {
      const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
      if (fence === undefined && open !== undefined) {
        fence = open[0] as string
        return ''
      }
      if (fence !== undefined) {
        if (open?.[0] === fence) fence = undefined
        return ''
      }
      return line
    })
    .join('\n')
}

/** The anchors a page offers: each heading's slug (a repeated one numbered, as GitHub does) and `<a id>` names. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const prose = withoutFences(markdown)
  for (const m of prose.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug((m[1] as string).replace(/`/g, ''))
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string)
  return anchors
}

export interface Link {
  target: string
  line: number
}

/** The links a page makes, outside code: inline ones, `[x](target)`, and reference definitions, `[x]: target`. */
export function linksOf(markdown: string): Link[] {
  // Code spans may run over a line end; each is replaced by its line ends alone.
  const prose = withoutFences(markdown).replace(/`[^`]+`/g, (span) => span.replace(/[^\n]/g, ''))
  const lineAt = (index: number): number => prose.slice(0, index).split('\n').length
  const links: Link[] = []
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?[^)]*\)/g))
    links.push({ target: m[1] as string, line: lineAt(m.index) })
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?/gm))
    links.push({ target: m[1] as string, line: lineAt(m.index) })
  return links
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i

/**
 * Problems with the relative links of `pages` (path from the repository's root to text): a file or folder that
 * does not exist under `root`, or an #anchor that is no heading of the Markdown page it names. A page in `pages`
 * is read from there, any other from disk.
 */
export function linkProblems(pages: ReadonlyMap<string, string>, root: string): string[] {
  const problems: string[] = []
  const anchors = new Map<string, Set<string>>()
  const anchorsAt = (path: string): Set<string> => {
    let found = anchors.get(path)
    if (found === undefined) {
      found = anchorsOf(pages.get(path) ?? readFileSync(join(root, path), 'utf8'))
      anchors.set(path, found)
    }
    return found
  }
  for (const [page, text] of pages) {
    for (const { target, line } of linksOf(text)) {
      if (EXTERNAL.test(target)) continue
      const [file = '', fragment] = target.split('#', 2)
      const path = file === '' ? page : normalize(join(dirname(page), decodeURIComponent(file)))
      const where = `${page}:${line}: ${target}`
      if (path.startsWith('..')) {
        problems.push(`${where}: points outside the repository`)
        continue
      }
      const exists = pages.has(path) || existsSync(join(root, path))
      if (!exists) {
        problems.push(`${where}: no such file`)
        continue
      }
      if (fragment === undefined || !path.endsWith('.md')) continue
      if (!pages.has(path) && statSync(join(root, path)).isDirectory()) continue
      if (!anchorsAt(path).has(decodeURIComponent(fragment)))
        problems.push(`${where}: no heading #${fragment} in ${path}`)
    }
  }
  return problems
}

/** The long flags a --help text defines: each option line's first flag (`  --name ...` or `  -n, --name ...`). */
export function helpFlags(help: string): string[] {
  const flags = [...help.matchAll(/^ {1,6}(?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1] as string)
  return [...new Set(flags)].filter((flag) => flag !== '--help')
}

/** The flags of `flags` that `page` never names (a flag's name is not part of a longer one: --vary in --vary-x). */
export function unnamedFlags(flags: readonly string[], page: string): string[] {
  return flags.filter((flag) => !new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(page))
}
