/**
 * Per-test recording inside a test worker. The setup file opens a recording before each test and, after it, stores
 * what was recorded in the test's meta, which vitest carries to the reporter. Exchanges made outside a test
 * (beforeAll) are held and handed to the next test of the file, so that audits still see them.
 */
import type { TestContext } from 'vitest'
import type { ExchangeExcerpt } from '../exchange.ts'
import { HarnessError } from '../errors.ts'

interface Observation {
  topic: string
  detail: string
}

/** An estimated cost reserved before a billable call (harness/worker/budget.ts). */
export interface SpendItem {
  usd: number
  what: string
  /** The 4xx status that refused the call, whose reservation was then released (harness/worker/budget.ts). */
  refused?: number
}

/**
 * What a skip waits on, as data for the report's Fix first: the requirement it names (a precondition, a route the
 * target does not serve) and the call that showed it (a failed set-up call names no requirement, only its call).
 */
export interface SkipCause {
  requirement?: string
  /** The served route the call went to, when the target answered that it does not serve it. */
  route?: string
  exchange?: ExchangeExcerpt
}

export interface ConformanceMeta {
  requirement?: string
  /** Set when the test skipped naming what it waits on. */
  cause?: SkipCause
  exchanges?: ExchangeExcerpt[]
  /** The call a failure cites, where it is not the test's last (a cleanup came after, or another test made it). */
  failureExchange?: ExchangeExcerpt
  observations?: Observation[]
  spend?: SpendItem[]
}

declare module 'vitest' {
  interface TaskMeta extends ConformanceMeta {}
}

interface Recording {
  ctx: TestContext
  exchanges: ExchangeExcerpt[]
  observations: Observation[]
  spend: SpendItem[]
}

let current: Recording | null = null
let held: Omit<Recording, 'ctx'> = { exchanges: [], observations: [], spend: [] }
let sequence = 0

export function nextSequence(): number {
  sequence += 1
  return sequence
}

export function openRecording(ctx: TestContext): void {
  current = { ctx, ...held }
  held = { exchanges: [], observations: [], spend: [] }
}

export function closeRecording(ctx: TestContext): void {
  if (current === null || current.ctx !== ctx) return
  ctx.task.meta.exchanges = current.exchanges
  ctx.task.meta.observations = current.observations
  ctx.task.meta.spend = current.spend
  current = null
}

export function recordExchange(excerpt: ExchangeExcerpt): void {
  ;(current ?? held).exchanges.push(excerpt)
}

/** Something the reference does not define, seen on the target: reported, never judged. */
export function observe(topic: string, detail: string): void {
  ;(current ?? held).observations.push({ topic, detail })
}

/**
 * Exchanges made after a file's last test (its afterAll cleanup), which no test will take: the setup file stores
 * them in the file's meta, so that exchanges.har still holds every call of the run.
 */
export function takeHeldExchanges(): ExchangeExcerpt[] {
  const taken = held.exchanges
  held.exchanges = []
  return taken
}

/** What was recorded outside any test and not taken: at a file's start, a former file's, never this one's. */
export function dropHeld(): void {
  held = { exchanges: [], observations: [], spend: [] }
}

/** A cost estimate reserved for a billable call (beforeAll spend goes to the file's next test). */
export function noteSpend(item: SpendItem): void {
  ;(current ?? held).spend.push(item)
}

/** The exchanges of the running test so far (newest last), for failure evidence. */
export function currentExchanges(): readonly ExchangeExcerpt[] {
  return current?.exchanges ?? held.exchanges
}

/** Whether a test is running: a call made outside one (beforeAll) is judged by the test that reads its answer. */
export function inTest(): boolean {
  return current !== null
}

/** The requirement id the running test checks, from its static meta. */
export function currentRequirement(): string | undefined {
  return current?.ctx.task.meta.requirement
}

/**
 * Skips the running test with a reason that the summary shows, and what it waits on as data. Outside a test there
 * is nothing to skip.
 */
export function skipTest(reason: string, cause?: SkipCause): never {
  if (current === null) throw new HarnessError('INTERNAL', `cannot skip outside a test: ${reason}`)
  if (cause !== undefined) current.ctx.task.meta.cause = cause
  current.ctx.skip(reason)
  throw new HarnessError('INTERNAL', 'ctx.skip returned')
}
