/**
 * The record ledger: every record the run saw more than once (a file, a video job, a response, a transaction) is
 * held to what the reference says stays the same, wherever it appears again: retrieve, list, stream, a later poll.
 * And every field the reference says equals something of the call (harness/worker/records.ts echoes; a transaction's
 * status_code and stream against the call whose svc-request-id is its id) is judged on every answer that carries
 * it. Pure: the exchanges of the whole run in, findings out. The reporter feeds it every exchange of every worker,
 * so a record created in one suite file and listed by another is still compared: a record has one identity on the
 * target, whichever process of ours looked at it.
 */
import type { ExchangeExcerpt } from '../exchange.ts'
import { KIND_RULES, LEDGER_REQ } from '../worker/records.ts'
import type { Sighting } from '../exchange.ts'

interface LedgerFinding {
  requirement: string
  ok: boolean
  detail: string
  /** The exchange that showed the contradiction (the later one); absent for a pass. */
  exchange?: ExchangeExcerpt
}

interface Seen {
  sighting: Sighting
  ex: ExchangeExcerpt
}

const MAX_FAILURES_PER_REQUIREMENT = 5

function describe(seen: Seen): string {
  return `${seen.sighting.where} of ${seen.ex.method} ${seen.ex.path} (call ${seen.ex.seq})`
}

/** The later exchange was sent after the earlier one's answer had arrived: what it shows is newer. */
function after(later: ExchangeExcerpt, earlier: ExchangeExcerpt): boolean {
  return later.startedAt > earlier.startedAt + earlier.durationMs
}

/** Fixed fields: every sighting of a record shows the value the first one showed. */
function fixedFindings(group: readonly Seen[], checked: Map<string, number>): LedgerFinding[] {
  const first = group[0] as Seen
  const rule = KIND_RULES[first.sighting.kind]
  const findings: LedgerFinding[] = []
  for (const field of rule.fixed) {
    const requirement = rule.fieldRequirement?.[field] ?? rule.requirement
    const carrying = group.filter((s) => s.sighting.fixed[field] !== undefined)
    const reference = carrying[0]
    if (reference === undefined || carrying.length < 2) continue
    checked.set(requirement, (checked.get(requirement) ?? 0) + carrying.length - 1)
    const other = carrying.find((s) => s.sighting.fixed[field] !== reference.sighting.fixed[field])
    if (other) {
      findings.push({
        requirement,
        ok: false,
        exchange: other.ex,
        detail: `${first.sighting.kind} ${first.sighting.id}: ${field} ${reference.sighting.fixed[field]} in the ${describe(reference)}, ${other.sighting.fixed[field]} in the ${describe(other)}`,
      })
    }
  }
  return findings
}

/** Terminal states: once a record was seen in one, every later sighting shows that state and its settled fields. */
function terminalFindings(group: readonly Seen[], checked: Map<string, number>): LedgerFinding[] {
  const first = group[0] as Seen
  const rule = KIND_RULES[first.sighting.kind]
  if (rule.terminal === undefined || rule.terminalRequirement === undefined) return []
  const requirement = rule.terminalRequirement
  const ended = group.find(
    (s) => s.sighting.state !== undefined && rule.terminal!.includes(JSON.parse(s.sighting.state) as string),
  )
  if (ended === undefined) return []
  const later = group.filter((s) => after(s.ex, ended.ex))
  if (later.length === 0) return []
  checked.set(requirement, (checked.get(requirement) ?? 0) + later.length)
  for (const s of later) {
    const changed = [
      ...(s.sighting.state !== undefined && s.sighting.state !== ended.sighting.state
        ? [`status ${s.sighting.state}`]
        : []),
      ...(rule.settled ?? [])
        .filter(
          (f) =>
            s.sighting.fixed[f] !== undefined &&
            ended.sighting.fixed[f] !== undefined &&
            s.sighting.fixed[f] !== ended.sighting.fixed[f],
        )
        .map((f) => `${f} ${s.sighting.fixed[f]}`),
    ]
    if (changed.length > 0) {
      return [
        {
          requirement,
          ok: false,
          exchange: s.ex,
          detail: `${first.sighting.kind} ${first.sighting.id} was ${ended.sighting.state} in the ${describe(ended)}, and later ${changed.join(', ')} in the ${describe(s)}`,
        },
      ]
    }
  }
  return []
}

function isStreamAnswer(ex: ExchangeExcerpt): boolean {
  return /^text\/event-stream\b/i.test(ex.responseHeaders?.['content-type'] ?? '')
}

/** §2.2: a transaction is not requested after it was processed. */
function timeFindings(seen: Seen, checked: Map<string, number>): LedgerFinding[] {
  const { requested_at: requested, created_at: created } = seen.sighting.fixed
  if (requested === undefined || created === undefined) return []
  const [requestedAt, createdAt] = [JSON.parse(requested) as unknown, JSON.parse(created) as unknown]
  const [from, to] = [
    typeof requestedAt === 'string' ? Date.parse(requestedAt) : Number.NaN,
    typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN,
  ]
  // Times that are no ISO 8601 strings are the envelope requirement's to report.
  if (Number.isNaN(from) || Number.isNaN(to)) return []
  const requirement = LEDGER_REQ.transactionFields
  checked.set(requirement, (checked.get(requirement) ?? 0) + 1)
  if (from <= to) return []
  return [
    {
      requirement,
      ok: false,
      exchange: seen.ex,
      detail: `transaction ${seen.sighting.id} (${describe(seen)}): requested_at ${requested} is later than created_at ${created}`,
    },
  ]
}

/** §2.2: a transaction's id is its call's svc-request-id, and it records that call's status, stream flag and identifier. */
function transactionCallFindings(
  seen: Seen,
  calls: ReadonlyMap<string, ExchangeExcerpt | null>,
  checked: Map<string, number>,
): LedgerFinding[] {
  const call = calls.get(seen.sighting.id)
  if (call === null || call?.status === undefined) return []
  const requirement = LEDGER_REQ.transactionFields
  checked.set(requirement, (checked.get(requirement) ?? 0) + 1)
  const problems: string[] = []
  const statusCode = seen.sighting.fixed.status_code
  if (statusCode !== undefined && statusCode !== String(call.status))
    problems.push(`status_code ${statusCode}, but the call answered ${call.status}`)
  const stream = seen.sighting.fixed.stream
  if (stream !== undefined && stream !== 'false' && call.notes?.streamAsked !== true && !isStreamAnswer(call))
    problems.push(`stream ${stream}, but the call neither asked for nor answered a stream`)
  // A call that was served (2xx) took its identifier; what a refused one records is not shown.
  const given = call.notes?.safetyIdentifier
  const recorded = seen.sighting.fixed.safety_identifier
  if (
    given !== undefined &&
    call.status >= 200 &&
    call.status < 300 &&
    recorded !== undefined &&
    recorded !== JSON.stringify(given)
  )
    problems.push(`safety_identifier ${recorded}, but the call gave ${JSON.stringify(given)}`)
  if (problems.length === 0) return []
  return [
    {
      requirement,
      ok: false,
      exchange: seen.ex,
      detail: `transaction ${seen.sighting.id} (${describe(seen)}) describes the call ${call.method} ${call.path} (call ${call.seq}): ${problems.join('; ')}`,
    },
  ]
}

export function ledgerFindings(exchanges: readonly ExchangeExcerpt[]): LedgerFinding[] {
  const ordered = [...exchanges].sort((a, b) => a.startedAt - b.startedAt || a.seq - b.seq)
  const checked = new Map<string, number>()
  const failures: LedgerFinding[] = []
  const groups = new Map<string, Seen[]>()
  // svc-request-id -> the one call that received it; null where several did (P1-4.1-svc-request-id-unique reports that)
  const calls = new Map<string, ExchangeExcerpt | null>()
  for (const ex of ordered) {
    const svcRequestId = ex.responseHeaders?.['svc-request-id']
    if (svcRequestId !== undefined) calls.set(svcRequestId, calls.has(svcRequestId) ? null : ex)
    for (const echo of ex.notes?.echoes ?? []) {
      checked.set(echo.requirement, (checked.get(echo.requirement) ?? 0) + 1)
      if (echo.seen !== echo.expected)
        failures.push({
          requirement: echo.requirement,
          ok: false,
          exchange: ex,
          detail: `${echo.field} ${echo.seen} in the answer of ${ex.method} ${ex.path} (call ${ex.seq}), where ${echo.expected} is due`,
        })
    }
    for (const sighting of ex.notes?.sightings ?? []) {
      const key = `${sighting.kind} ${sighting.id}`
      const group = groups.get(key) ?? []
      group.push({ sighting, ex })
      groups.set(key, group)
    }
  }
  for (const group of groups.values()) {
    const first = group[0] as Seen
    // §2.2 is judged on a transaction whose call the run made (its id one of the run's svc-request-ids): the
    // account's other clients' transactions are listed too, and are theirs.
    if (first.sighting.kind === 'transaction' && !calls.has(first.sighting.id)) continue
    if (group.length > 1) failures.push(...fixedFindings(group, checked), ...terminalFindings(group, checked))
    // Against its call once: its later sightings are held to the first by fixedFindings. The time order on every
    // sighting, as created_at may be settled later; one failure per transaction.
    if (first.sighting.kind === 'transaction') {
      failures.push(...transactionCallFindings(first, calls, checked))
      for (const seen of group) {
        const found = timeFindings(seen, checked)
        failures.push(...found)
        if (found.length > 0) break
      }
    }
  }
  const findings: LedgerFinding[] = []
  for (const [requirement, count] of checked) {
    const failing = failures.filter((f) => f.requirement === requirement)
    if (failing.length === 0)
      findings.push({ requirement, ok: true, detail: `${count} later sightings and echoes agree` })
    else findings.push(...failing.slice(0, MAX_FAILURES_PER_REQUIREMENT))
  }
  return findings
}
