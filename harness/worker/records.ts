/**
 * What one answer says about the records of the reference: for every file, video job, response and transaction it
 * shows (an upload, a retrieve, an item of a list, the response inside a stream's event), the fields the reference
 * says stay the same and the state the record is in; and, for the fields the reference says equal something of
 * the call itself (request_id and svc-request-id, an echoed audioConfig), what was asked and what was answered.
 * Pure: computed by the client from the full answer, so that the ledger (harness/report/ledger.ts) can compare records
 * across the whole run from exchanges whose bodies are only kept as excerpts.
 */
import { isObject } from '../../common/json.ts'
import type { Echo, ExchangeExcerpt, RecordKind, RecordNotes, Sighting } from '../exchange.ts'
import type { SseEvent } from './sse.ts'

/** The requirement each kind of contradiction breaks (schemas/requirements.json). */
export const LEDGER_REQ = {
  fileFixed: 'P1-4.4-retrieve',
  videoRequestId: 'P2-2.1-request-id',
  videoFixed: 'P2-4.1-retrieve',
  videoTerminal: 'P2-3-terminal-stable',
  responseSame: 'P1-4.5-retrieve-same',
  transactionFields: 'P1-2.2-transaction-fields',
  audioConfigEcho: 'P2-2.6-audio-config-echo',
} as const

interface KindRule {
  /** Part 1 §2.4, §4.4; Part 2 §2.1, §4.1; Part 1 §2.2: what the reference says a record keeps. */
  fixed: readonly string[]
  /** The requirement a changed fixed field breaks, by field (default: `requirement`). */
  requirement: string
  fieldRequirement?: Record<string, string>
  /** For fields that hold an object: the members the reference names, the only ones compared (§9.2: others may come and go). */
  members?: Record<string, readonly string[]>
  /** Fields kept beside the fixed ones but never compared between sightings: each sighting is judged on its own. */
  carried?: readonly string[]
  /** States after which the record's state, and `settled` fields, no longer change. */
  terminal?: readonly string[]
  settled?: readonly string[]
  terminalRequirement?: string
}

export const KIND_RULES: Record<RecordKind, KindRule> = {
  // status and status_details may change (§2.4 gives them as nullable); everything the upload described stays.
  file: { fixed: ['bytes', 'created_at', 'expires_at', 'filename', 'purpose'], requirement: LEDGER_REQ.fileFixed },
  // Progress, and the status before the end, move; §3 keeps completed and failed.
  video: {
    fixed: ['request_id', 'safety_identifier'],
    requirement: LEDGER_REQ.videoFixed,
    fieldRequirement: { request_id: LEDGER_REQ.videoRequestId },
    terminal: ['completed', 'failed'],
    terminalRequirement: LEDGER_REQ.videoTerminal,
  },
  // A response's status moves while it runs (queued, in_progress); once it ended, it and its text stay.
  response: {
    fixed: [],
    requirement: LEDGER_REQ.responseSame,
    terminal: ['completed', 'incomplete'],
    settled: ['output_text'],
    terminalRequirement: LEDGER_REQ.responseSame,
  },
  // §2.2 ties requested_at ("the request started"), status_code, stream and safety_identifier to the call, which
  // does not change; token counts, model, provider and created_at (when the cost was calculated) may be settled
  // after a first listing. created_at is carried for its order after requested_at, judged on every sighting.
  transaction: {
    fixed: ['requested_at', 'safety_identifier', 'status_code', 'stream'],
    carried: ['created_at'],
    requirement: LEDGER_REQ.transactionFields,
  },
}

/** JSON text that does not depend on key order (§9.2: clients must not rely on field order). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

function pick(value: unknown, members: readonly string[] | undefined): unknown {
  if (members === undefined || !isObject(value)) return value
  return Object.fromEntries(members.filter((m) => value[m] !== undefined).map((m) => [m, value[m]]))
}

/** Part 2 §4.9: the encodings and, per encoding, the rates a synthesis answer must echo when asked. */
const SYNTHESIS_RATES: Record<string, readonly number[] | null> = {
  MP3: null,
  OGG_OPUS: null,
  LINEAR16: [16000, 24000, 48000],
  MULAW: [8000],
  ALAW: [8000],
}

function sighting(kind: RecordKind, body: unknown, where: string): Sighting | undefined {
  if (!isObject(body) || typeof body.id !== 'string' || body.id === '') return undefined
  const rule = KIND_RULES[kind]
  const fixed: Record<string, string> = {}
  for (const field of [...rule.fixed, ...(rule.settled ?? []), ...(rule.carried ?? [])]) {
    if (body[field] !== undefined) fixed[field] = canonical(pick(body[field], rule.members?.[field]))
  }
  return {
    kind,
    id: body.id,
    where,
    fixed,
    ...(rule.terminal && body.status !== undefined ? { state: canonical(body.status) } : {}),
  }
}

function listed(kind: RecordKind, items: unknown): Sighting[] {
  if (!Array.isArray(items)) return []
  return items.flatMap(
    (item, i) => sighting(kind, item, `list /${kind === 'transaction' ? 'transactions' : 'data'}/${i}`) ?? [],
  )
}

/** The paths whose answers can show records: the only answers parsed for the ledger. */
const RECORD_ROUTE = /^\/(v1\/(files|videos|responses)|user\/v1\/transactions)(\/|\?|$)/

/** The records of a JSON answer (2xx only: an error body describes no record), by the route that gave it. */
function sightingsOf(method: string, path: string, json: unknown): Sighting[] {
  const route = path.split('?')[0] as string
  const one = (kind: RecordKind, where: string): Sighting[] => {
    const found = sighting(kind, json, where)
    return found ? [found] : []
  }
  if (route === '/v1/files')
    return method === 'POST'
      ? one('file', 'upload')
      : method === 'GET' && isObject(json)
        ? listed('file', json.data)
        : []
  if (/^\/v1\/files\/[^/]+$/.test(route) && method === 'GET') return one('file', 'retrieve')
  if (route === '/v1/videos')
    return method === 'POST'
      ? one('video', 'create')
      : method === 'GET' && isObject(json)
        ? listed('video', json.data)
        : []
  if (/^\/v1\/videos\/[^/]+$/.test(route) && method === 'GET') return one('video', 'retrieve')
  if (/^\/v1\/videos\/[^/]+\/remix$/.test(route) && method === 'POST') return one('video', 'remix')
  if (route === '/v1/responses' && method === 'POST') return one('response', 'create')
  if (/^\/v1\/responses\/[^/]+$/.test(route) && method === 'GET') return one('response', 'retrieve')
  if (route === '/user/v1/transactions' && method === 'GET' && isObject(json))
    return listed('transaction', json.transactions)
  return []
}

/** The response objects a stream's events carry (Part 1 §6.2): response.created, .completed and the like. */
function streamSightings(events: readonly SseEvent[]): Sighting[] {
  return events.flatMap((event) => {
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return []
    }
    if (!isObject(data) || typeof data.type !== 'string' || !data.type.startsWith('response.')) return []
    return sighting('response', data.response, `stream ${data.type}`) ?? []
  })
}

/** §4.1 rules: a request_id in the body of the call that created a video job is that call's svc-request-id. */
function requestIdEchoes(sightings: readonly Sighting[], svcRequestId: string | undefined): Echo[] {
  if (svcRequestId === undefined) return []
  return sightings
    .filter(
      (s) => s.kind === 'video' && (s.where === 'create' || s.where === 'remix') && s.fixed.request_id !== undefined,
    )
    .map((s) => ({
      requirement: LEDGER_REQ.videoRequestId,
      field: `request_id of ${s.id} (${s.where})`,
      expected: JSON.stringify(svcRequestId),
      seen: s.fixed.request_id as string,
    }))
}

/** Part 2 §2.6: audioConfig echoes the asked encoding, and the asked rate where the reference lets one be asked. */
function audioConfigEchoes(asked: unknown, json: unknown): Echo[] {
  const config = isObject(asked) && isObject(asked.audioConfig) ? asked.audioConfig : undefined
  const encoding = config?.audioEncoding
  // An encoding or rate outside §4.9 should have been refused: that is another requirement's to judge.
  if (typeof encoding !== 'string' || !(encoding in SYNTHESIS_RATES)) return []
  const answered = isObject(json) && isObject(json.audioConfig) ? json.audioConfig : {}
  const echoes: Echo[] = [
    {
      requirement: LEDGER_REQ.audioConfigEcho,
      field: 'audioConfig.audioEncoding',
      expected: JSON.stringify(encoding),
      seen: JSON.stringify(answered.audioEncoding),
    },
  ]
  const rates = SYNTHESIS_RATES[encoding]
  if (rates && typeof config?.sampleRateHertz === 'number' && rates.includes(config.sampleRateHertz)) {
    echoes.push({
      requirement: LEDGER_REQ.audioConfigEcho,
      field: 'audioConfig.sampleRateHertz',
      expected: JSON.stringify(config.sampleRateHertz),
      seen: JSON.stringify(answered.sampleRateHertz),
    })
  }
  return echoes
}

function asksStream(asked: unknown, path: string, opaqueBody: boolean): boolean {
  if (opaqueBody || /:stream/i.test(path)) return true
  return isObject(asked) && (asked.stream === true || asked.stream_format !== undefined)
}

/**
 * The notes of one exchange: `asked` is the JSON body sent, `opaqueBody` true when another body was sent (a form,
 * bytes), `json` parses the answer (undefined when it is not JSON; only called for the routes that show records),
 * `events` a stream's events.
 */
export function recordNotes(
  excerpt: Pick<ExchangeExcerpt, 'method' | 'path' | 'status' | 'responseHeaders'>,
  asked: unknown,
  opaqueBody: boolean,
  json: () => unknown,
  events?: readonly SseEvent[],
): RecordNotes | undefined {
  const status = excerpt.status ?? 0
  const notes: RecordNotes = {}
  if (asksStream(asked, excerpt.path, opaqueBody)) notes.streamAsked = true
  if (isObject(asked) && typeof asked.safety_identifier === 'string') notes.safetyIdentifier = asked.safety_identifier
  if (status >= 200 && status < 300) {
    const sightings =
      events !== undefined
        ? streamSightings(events)
        : RECORD_ROUTE.test(excerpt.path)
          ? sightingsOf(excerpt.method, excerpt.path, json())
          : []
    const svcRequestId = excerpt.responseHeaders?.['svc-request-id']
    const echoes = [
      ...requestIdEchoes(sightings, svcRequestId),
      ...(excerpt.method === 'POST' && excerpt.path.split('?')[0] === '/v1/text:synthesize' && events === undefined
        ? audioConfigEchoes(asked, json())
        : []),
    ]
    if (sightings.length > 0) notes.sightings = sightings
    if (echoes.length > 0) notes.echoes = echoes
  }
  return Object.keys(notes).length > 0 ? notes : undefined
}
