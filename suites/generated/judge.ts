/**
 * How the generation phase judges an answer. A negative case: a refusal (any 4xx other than 429), never a 2xx or a
 * 5xx (expectRefused: the level of the requirement it is filed under makes a 2xx a failure or a warning); a body that
 * is not JSON, 400. A positive
 * or boundary case: no 5xx, and a 2xx whose JSON body matches the route's response schema where the answer table
 * (harness/openapi/answers.ts) names one; a 4xx is recorded, not judged, since the words allow refusals a schema cannot see (a tier, a model's
 * capability, a limit), and a 429 skips as everywhere.
 */
import { type GeneratedCase, refusalStated } from '../../harness/generate/cases.ts'
import { answerSchemaOf } from '../../harness/openapi/answers.ts'
import {
  expectJudgeableRefusal,
  expectKeyAccepted,
  expectRefused,
  expectSchema,
  expectStatus,
  fail,
  is2xx,
  notObserved,
  skipIfRouteAbsent,
} from '../../harness/worker/assert.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'

/** What the case is, for a failure's expected line: its words, its id and the seed that makes it again. */
export function caseWords(c: GeneratedCase, seed: number): string {
  return `${c.title} (generated ${c.id} of ${c.route}, seed ${seed})`
}

function judgeNegative(ex: Exchange, c: GeneratedCase, seed: number): void {
  if (c.keyword === 'json') {
    judgeNotJson(ex, c, seed)
    return
  }
  const words = refusalStated(c) ? 'the words state its refusal' : 'a stated constraint broken'
  expectRefused(ex, `${caseWords(c, seed)}: ${words}`)
}

/**
 * A body that is not JSON: 400, the status §7 gives an invalid request. A route the target does not serve is the
 * requirement that states the route's to judge, not this body's.
 */
function judgeNotJson(ex: Exchange, c: GeneratedCase, seed: number): void {
  expectJudgeableRefusal(ex)
  skipIfRouteAbsent(ex.excerpt)
  expectStatus(ex, 400, `400 invalid request: ${caseWords(c, seed)}`)
}

function judgeServed(ex: Exchange, c: GeneratedCase, seed: number): void {
  expectJudgeableRefusal(ex)
  if (ex.status >= 500)
    fail(
      `no server error: a request its schema allows, ${caseWords(c, seed)}`,
      `${ex.status} ${ex.text.slice(0, 200)}`,
      ex,
    )
  if (ex.status < 200 || (ex.status >= 300 && ex.status < 400))
    fail(`an answer (2xx), or a refusal (4xx): ${caseWords(c, seed)}`, `${ex.status} ${ex.text.slice(0, 200)}`, ex)
  if (!is2xx(ex)) {
    expectKeyAccepted(ex)
    observe(`a generated ${c.kind} request refused (${c.route})`, `${ex.status}: ${c.title}`)
    notObserved(
      `${caseWords(c, seed)} answered ${ex.status}: a refusal the words may allow (a tier, a model's capability, a limit) is recorded, not judged`,
    )
  }
  const schema = answerSchemaOf(c.route)
  const json = /json/i.test(ex.header('content-type') ?? '')
  if (schema !== undefined && json) expectSchema(ex, schema)
}

export function judge(ex: Exchange, c: GeneratedCase, seed: number): void {
  if (c.kind === 'negative') judgeNegative(ex, c, seed)
  else judgeServed(ex, c, seed)
}
