/**
 * exchanges.har: every HTTP exchange of a run as an HTTP Archive 1.2
 * (http://www.softwareishard.com/blog/har-12-spec/), so that a failure can be studied in a browser's network
 * panel or replayed. Each entry names the test and requirement it served in the custom `_test` and
 * `_requirement` fields (HAR 1.2 allows custom fields that start with an underscore).
 *
 * The exchanges arrive as excerpts (harness/exchange.ts), already redacted and with bodies cut; a cut body keeps
 * its full size in `size` and says so in a `comment`. The file is written entry by entry, so its size never has
 * to exist as one string. Past `maxEntries` exchanges (a full run against the embedded gateway makes about
 * 12,000, most of them the tiers family's bursts), failing tests keep every exchange and each other test keeps
 * at most an equal share, its first and last calls, so that a burst loses its middle and no test disappears;
 * the log's comment says so.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { EXCERPT_CHARS, type ExchangeExcerpt } from '../exchange.ts'
import { isBinary } from '../worker/http-client.ts'
import type { OutcomeStatus } from './results.ts'

/** The exchanges one test (or one file's afterAll) made, with what they served. */
export interface HarSource {
  test: string
  file: string
  /** Absent for exchanges made outside any test (a file's afterAll cleanup). */
  requirement?: string
  outcome?: OutcomeStatus
  exchanges: readonly ExchangeExcerpt[]
}

interface HarOptions {
  creator: { name: string; version: string }
  /** Most entries written; a full run against the embedded gateway makes a few thousand. */
  maxEntries?: number
}

/** About 25 MB of HAR (2.5 kB an entry in a full run): what a browser's network panel still opens readily. */
const MAX_HAR_ENTRIES = 10_000

interface NameValue {
  name: string
  value: string
}

export interface HarEntry {
  startedDateTime: string
  time: number
  request: {
    method: string
    url: string
    httpVersion: string
    cookies: NameValue[]
    headers: NameValue[]
    queryString: NameValue[]
    postData?: { mimeType: string; text: string; comment?: string }
    headersSize: number
    bodySize: number
  }
  response: {
    status: number
    statusText: string
    httpVersion: string
    cookies: NameValue[]
    headers: NameValue[]
    content: { size: number; mimeType: string; text?: string; comment?: string }
    redirectURL: string
    headersSize: number
    bodySize: number
    comment?: string
  }
  cache: Record<string, never>
  timings: { blocked: number; dns: number; connect: number; send: number; wait: number; receive: number; ssl: number }
  comment?: string
  _test: string
  _file: string
  _requirement: string | null
  _outcome: OutcomeStatus | null
  _attempt: number
  _key: string | null
  _pacedMs?: number
  _error?: string
}

const MORE = /… \[(\d+) more characters\]$/

function pairs(headers: Record<string, string> | undefined): NameValue[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }))
}

function queryOf(url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

function postData(ex: ExchangeExcerpt): HarEntry['request']['postData'] {
  if (ex.requestBody === undefined) return undefined
  const mimeType = ex.requestHeaders['content-type'] ?? ''
  if (ex.requestBodyIsNote === true)
    return {
      mimeType,
      text: ex.requestBody,
      comment: 'not the body itself: a description of a large, binary or streamed body',
    }
  const cut = MORE.exec(ex.requestBody)
  if (cut)
    return {
      mimeType,
      text: ex.requestBody,
      comment: `truncated: the first ${EXCERPT_CHARS} characters of ${EXCERPT_CHARS + Number(cut[1])}`,
    }
  return { mimeType, text: ex.requestBody }
}

function requestBodySize(ex: ExchangeExcerpt): number {
  if (ex.requestBody === undefined) return 0
  if (ex.requestBodyIsNote === true || MORE.test(ex.requestBody)) return -1 // not known from the excerpt
  return Buffer.byteLength(ex.requestBody)
}

function content(ex: ExchangeExcerpt): HarEntry['response']['content'] {
  const mimeType = ex.responseHeaders?.['content-type'] ?? 'x-unknown'
  const body = ex.body ?? ''
  const size = ex.bodyBytes ?? Buffer.byteLength(body)
  // Binary bodies are kept as a description; as text, a viewer would try to render it as the media type says.
  if (isBinary(ex.responseHeaders?.['content-type']) && body.startsWith('['))
    return { size, mimeType, comment: `binary body not kept: ${body}` }
  if (ex.bodyTruncated === true)
    return { size, mimeType, text: body, comment: `truncated: the first ${EXCERPT_CHARS} characters of ${size} bytes` }
  return { size, mimeType, text: body }
}

function harEntry(ex: ExchangeExcerpt, source: HarSource): HarEntry {
  const answered = ex.status !== undefined
  const entry: HarEntry = {
    startedDateTime: new Date(ex.startedAt).toISOString(),
    time: ex.durationMs,
    request: {
      method: ex.method,
      url: ex.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(ex.requestHeaders),
      queryString: queryOf(ex.url),
      headersSize: -1,
      bodySize: requestBodySize(ex),
    },
    response: {
      // Status 0 is how browsers record a call that got no answer.
      status: ex.status ?? 0,
      statusText: answered ? (STATUS_CODES[ex.status as number] ?? '') : '',
      httpVersion: answered ? 'HTTP/1.1' : '',
      cookies: [],
      headers: pairs(ex.responseHeaders),
      content: content(ex),
      redirectURL: ex.responseHeaders?.location ?? '',
      headersSize: -1,
      bodySize: answered ? (ex.bodyBytes ?? -1) : -1,
      ...(ex.error === undefined ? {} : { comment: ex.error }),
    },
    cache: {},
    // Only the whole exchange is timed (headers and body, from the request's start); the rest is unknown (-1).
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait: ex.durationMs, receive: 0, ssl: -1 },
    _test: source.test,
    _file: source.file,
    _requirement: source.requirement ?? null,
    _outcome: source.outcome ?? null,
    _attempt: ex.attempt,
    _key: ex.key,
    ...(ex.pacedMs === undefined ? {} : { _pacedMs: ex.pacedMs }),
    ...(ex.error === undefined ? {} : { _error: ex.error }),
  }
  const data = postData(ex)
  if (data !== undefined) entry.request.postData = data
  if (source.requirement !== undefined) entry.comment = `${source.requirement}: ${source.test}`
  return entry
}

interface Picked {
  ex: ExchangeExcerpt
  source: HarSource
}

const FAILING = new Set<OutcomeStatus | undefined>(['fail', 'error'])

/**
 * The largest share `q` such that giving each list min(length, q) entries stays within `budget` (water-filling):
 * small tests keep everything, the largest are cut to the same size.
 */
function share(lengths: readonly number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b)
  let left = budget
  for (let i = 0; i < sorted.length; i += 1) {
    const fair = Math.floor(left / (sorted.length - i))
    if ((sorted[i] as number) > fair) return fair
    left -= sorted[i] as number
  }
  return Number.POSITIVE_INFINITY
}

/** Its first and last calls: where a burst starts and where it meets the limit. */
function ends<T>(list: readonly T[], keep: number): T[] {
  if (list.length <= keep) return [...list]
  const head = Math.ceil(keep / 2)
  return [...list.slice(0, head), ...list.slice(list.length - (keep - head))]
}

/** Every exchange in time order; past the cap, see the file's comment. `share` is the per-test cap, if one applied. */
export function pickEntries(
  sources: readonly HarSource[],
  maxEntries: number,
): { picked: Picked[]; total: number; share?: number } {
  const byTime = (a: Picked, b: Picked): number => a.ex.startedAt - b.ex.startedAt || a.ex.seq - b.ex.seq
  const perSource = sources.map((source) => source.exchanges.map((ex) => ({ ex, source })))
  const total = perSource.reduce((sum, list) => sum + list.length, 0)
  if (total <= maxEntries) return { picked: perSource.flat().sort(byTime), total }
  const failing = perSource
    .filter((list) => FAILING.has(list[0]?.source.outcome))
    .flat()
    .sort(byTime)
    .slice(0, maxEntries)
  const others = perSource.filter((list) => !FAILING.has(list[0]?.source.outcome))
  const q = share(
    others.map((list) => list.length),
    maxEntries - failing.length,
  )
  const picked = [...failing, ...others.flatMap((list) => ends(list, q))].sort(byTime)
  return { picked, total, share: q }
}

/** The HAR text in pieces: the head, one piece per entry, the tail. Joined, they are one JSON document. */
export function* harChunks(sources: readonly HarSource[], options: HarOptions): Generator<string> {
  const max = options.maxEntries ?? MAX_HAR_ENTRIES
  const { picked, total, share: q } = pickEntries(sources, max)
  const comment =
    picked.length < total
      ? `${total} exchanges in the run; ${picked.length} kept (the cap is ${max}): ${q === undefined || !Number.isFinite(q) ? 'the earliest of failing tests' : `every exchange of failing tests, and of each other test at most ${q}, its first and last`}; bodies cut to ${EXCERPT_CHARS} characters; keys redacted`
      : `${total} exchanges of the run; bodies cut to ${EXCERPT_CHARS} characters; keys redacted`
  const head = { version: '1.2', creator: options.creator, comment }
  // The head's JSON without its closing brace, then the entries array.
  yield `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[\n`
  let first = true
  for (const { ex, source } of picked) {
    yield `${first ? '' : ',\n'}${JSON.stringify(harEntry(ex, source))}`
    first = false
  }
  yield '\n]}}\n'
}

/** Writes the HAR piece by piece through `transform` (the reporter's last redaction pass). */
export function writeHar(
  path: string,
  sources: readonly HarSource[],
  options: HarOptions,
  transform: (text: string) => string = (t) => t,
): void {
  const fd = openSync(path, 'w')
  try {
    for (const chunk of harChunks(sources, options)) writeSync(fd, transform(chunk))
  } finally {
    closeSync(fd)
  }
}
