/**
 * What a fuzzed call may answer: never 5xx; a 4xx only among the statuses the reference gives the route, with a
 * JSON body in the route's error dialect, validated by ajv against the schemas of schemas/ (and, for the shapes
 * the reference does not show, the gateway's documented dialect); and the svc-request-id of Part 1 §4.1 on
 * every answer, errors included.
 */
import { schemas } from '../../harness/schema-registry.ts'
import type { ErrorDialect } from './fuzz-routes.ts'
import { UUID_V7 } from '../unit/gateway/helpers.ts'

/**
 * The compatible dialect in full: Part 1 §7 shows it for 429 (message, type, param, code); gateway/errors.ts and
 * gateway/README.md ("Where the reference is silent") answer every other compatible error in the same shape.
 */
const COMPATIBLE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: {
        message: { type: 'string', minLength: 1 },
        type: { type: 'string', minLength: 1 },
        param: { type: ['string', 'null'] },
        code: { type: 'string', minLength: 1 },
      },
    },
  },
}
/** Part 1 §5.5 and §7 on /user/v1: `error` a word and a message (401 unauthorized, 403 forbidden, 429 rate_limit_exceeded). */
const USAGE = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string', minLength: 1 }, message: { type: 'string' } },
}

const LOCAL: Readonly<Record<'compatible' | 'usage', object>> = { compatible: COMPATIBLE, usage: USAGE }

/** Schemas of schemas/ that a given dialect and status must also satisfy. */
function registered(dialect: ErrorDialect, status: number): string[] {
  switch (dialect) {
    case 'compatible':
      return status === 429 ? ['responses/error-body.json', 'moderation/error-429.json'] : ['responses/error-body.json']
    case 'usage':
      return status === 401
        ? ['auth/usage-401.json']
        : status === 403
          ? ['auth/usage-403.json']
          : status === 429
            ? ['account/usage-429.json']
            : []
    case 'native':
      // Part 2 §7 gives speech synthesis error {code integer, message, status}; the native interface answers alike.
      return ['synthesize/error-body.json']
  }
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

/** What is wrong with an answer to a fuzzed call; empty when nothing is. */
export function answerProblems(dialect: ErrorDialect, statuses: readonly number[], answer: Answer): string[] {
  const problems: string[] = []
  const { status } = answer
  if (!UUID_V7.test(String(answer.headers['svc-request-id'] ?? '')))
    problems.push(`no svc-request-id (UUID v7) on a ${status} (Part 1 §4.1)`)
  if (status >= 500) return [...problems, `answered ${status}: ${answer.body.slice(0, 200)}`]
  if (status < 400) return problems
  if (!statuses.includes(status)) problems.push(`answered ${status}, not one of ${statuses.join(', ')}`)
  const type = String(answer.headers['content-type'] ?? '')
  if (!/^application\/json\b/.test(type)) problems.push(`a ${status} with content-type '${type}', not JSON`)
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return [...problems, `a ${status} whose body is not JSON: ${answer.body.slice(0, 120)}`]
  }
  if (dialect !== 'native') {
    const local = schemas().validateWith(LOCAL[dialect], body)
    if (!local.ok) problems.push(...local.errors.map((e) => `${dialect} dialect ${e}`))
  }
  for (const ref of registered(dialect, status)) {
    const result = schemas().validate(ref, body)
    if (!result.ok) problems.push(...result.errors.map((e) => `${ref} ${e}`))
  }
  if (problems.length > 0) problems.push(`body: ${answer.body.slice(0, 200)}`)
  return problems
}
