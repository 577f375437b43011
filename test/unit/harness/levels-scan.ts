/**
 * A reading of suite source good enough to hold levels to their words: the text of each `check(id, …)` call with
 * the same file's functions it calls, the exact statuses that text asserts, and whether a quote states a refusal
 * or a time. Helpers imported from other files are not followed: the scan is a guard, not a proof.
 */

/** Index just past the bracket that closes the one at `open`, skipping strings, templates and comments. */
export function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' }
  const stack: string[] = []
  for (let i = open; i < text.length; i += 1) {
    const c = text[i] as string
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i)
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) + 1
    else if (c === "'" || c === '"') i = endOfString(text, i, c)
    else if (c === '`') i = endOfTemplate(text, i)
    else if (pairs[c] !== undefined) stack.push(pairs[c] as string)
    else if (c === ')' || c === '}' || c === ']') {
      stack.pop()
      if (stack.length === 0) return i + 1
    }
  }
  return text.length
}

function endOfString(text: string, start: number, quote: string): number {
  for (let i = start + 1; i < text.length; i += 1) {
    if (text[i] === '\\') i += 1
    else if (text[i] === quote || text[i] === '\n') return i
  }
  return text.length
}

function endOfTemplate(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i += 1) {
    if (text[i] === '\\') i += 1
    else if (text[i] === '`') return i
    else if (text[i] === '$' && text[i + 1] === '{') i = closing(text, i + 1) - 1
  }
  return text.length
}

/** Same-file function bodies by name: `function f(…) {…}` and `const f = (…) => {…}`. */
function functions(text: string): Map<string, string> {
  const found = new Map<string, string>()
  const declaration = /(?:function\s+(\w+)\s*(?:<[^>]*>)?\(|const\s+(\w+)\s*=\s*(?:async\s*)?\([^)]*\)[^=]*=>\s*\{)/g
  for (const match of text.matchAll(declaration)) {
    const name = (match[1] ?? match[2]) as string
    const brace = text.indexOf('{', match.index + match[0].length - (match[2] === undefined ? 0 : 1))
    if (brace >= 0) found.set(name, text.slice(match.index, closing(text, brace)))
  }
  return found
}

/** Each requirement id's check texts, each with the bodies of the same file's functions it calls. */
export function checkBodies(files: Array<{ path: string; text: string }>): Map<string, string[]> {
  const bodies = new Map<string, string[]>()
  for (const { text } of files) {
    const local = functions(text)
    for (const match of text.matchAll(/(?<![\w.])check\(\s*'(P[12]-[\w.-]+)'/g)) {
      const own = text.slice(match.index, closing(text, match.index + 'check'.length))
      const called = [...local].filter(([name]) => new RegExp(`(?<![\\w.])${name}\\(`).test(own)).map(([, b]) => b)
      const id = match[1] as string
      bodies.set(id, [...(bodies.get(id) ?? []), [own, ...called].join('\n')])
    }
  }
  return bodies
}

/** The statuses a text asserts one at a time: `expectStatus(x, 200)` and `expectThat(x.status === 200, …)`. */
export function exactStatuses(text: string): number[] {
  const out: number[] = []
  for (const match of text.matchAll(/(?<![\w.])expect(Status|That)\(/g)) {
    const open = match.index + match[0].length - 1
    const args = topLevelArgs(text.slice(open + 1, closing(text, open) - 1))
    if (match[1] === 'Status' && /^\d{3}$/.test(args[1] ?? '')) out.push(Number(args[1]))
    const first = args[0] ?? ''
    const equal = /\.status\s*===\s*(\d{3})/.exec(first)
    if (match[1] === 'That' && equal !== null && !/\|\||!==|>=|<=|[<>]\s*\d/.test(first)) out.push(Number(equal[1]))
  }
  return out
}

function topLevelArgs(inner: string): string[] {
  const args: string[] = []
  let start = 0
  for (let i = 0; i < inner.length; i += 1) {
    const c = inner[i]
    if (c === '(' || c === '{' || c === '[') i = closing(inner, i) - 1
    else if (c === "'" || c === '"') i = endOfString(inner, i, c)
    else if (c === '`') i = endOfTemplate(inner, i)
    else if (c === ',') {
      args.push(inner.slice(start, i).trim())
      start = i + 1
    }
  }
  args.push(inner.slice(start).trim())
  return args
}

/**
 * Words that state a refusal: a client-error status, or a verb of refusing. §7's list of statuses ("400 invalid
 * request", the search row's "400 invalid parameters") names the status of an invalid request, not which requests
 * are invalid, so it alone states no refusal: a deduction from it (a required field missing) says so in levelNote.
 */
export function quoteStatesRefusal(quote: string): boolean {
  const words = quote.replace(/400 invalid (request|parameters)/g, '')
  return /\b4\d\d\b/.test(words) || /\b(refus\w*|reject\w*|blocked|fails? with|not available|denied)\b/i.test(words)
}

/** Words that give a time: a number and its unit. */
export function quoteStatesTime(quote: string): boolean {
  return /\b\d+(\.\d+)?\s*(ms|milliseconds?|s|seconds?|minutes?|hours?|days?)\b/i.test(quote)
}
