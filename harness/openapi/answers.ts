/**
 * What each served route answers, as the OpenAPI document states it: the success body by its schema under
 * `schemas/` (or a stream, or bytes, or "not shown"), and the error statuses with the body §7 of its part gives.
 * Only what the reference shows is a schema; a shape it does not show is a description that says so.
 */

/** A body: a schema under schemas/, a list envelope (`data`) or a bare array of such items, a choice between bodies, bytes, or a stream of events. */
export type Body =
  | { schema: string }
  | { listOf: string }
  | { arrayOf: string }
  | { oneOf: Body[]; why: string }
  | { bytes: string }
  | { text: true }
  | { events: string[] }
  | { notShown: string }

export interface Answer {
  /** The success status: "200", or the class "2XX" where the words give only "2xx success". */
  status: string
  /** By media type, e.g. application/json and text/event-stream for a route that streams when asked. */
  bodies: Record<string, Body>
}

const SYNTHESIS_ERROR_BODY = 'P2-7-synthesis-error-body'

/** The error dialects of §7: each names the statuses and the body schema it gives them (undefined: not shown). */
export type Dialect = 'compatible' | 'usage' | 'search' | 'moderation' | 'videos' | 'synthesis' | 'native'

/** A status of a dialect: the body schema where §7 shows one, and where a check judges it, the requirement stating it. */
export interface DialectStatus {
  schema?: string
  /** The requirement stating this body, where one does. */
  requirement?: string
  description: string
}

export const DIALECTS: Record<Dialect, Record<string, DialectStatus>> = {
  // Part 1 §7: the statuses used across endpoints; only the 429's body is shown.
  compatible: {
    '400': { description: 'invalid request (Part 1 §7; its body is not shown)' },
    '401': { description: 'invalid or missing key (Part 1 §7)' },
    '403': { description: 'no permission (Part 1 §7)' },
    '404': { description: 'resource missing (Part 1 §7; its body is not shown)' },
    '429': { schema: 'common/compatible-429.json', description: 'rate limit exceeded (Part 1 §7)' },
    '500': { description: 'server error (Part 1 §7; its body is not shown)' },
  },
  // Part 1 §5 rule 5 and §7: the usage endpoints' own bodies.
  usage: {
    '400': { description: 'invalid request (Part 1 §7; its body is not shown)' },
    '401': { schema: 'auth/usage-401.json', description: 'missing or invalid key (Part 1 §5)' },
    '403': { schema: 'auth/usage-403.json', description: 'suspended or inactive account (Part 1 §5)' },
    '429': { schema: 'account/usage-429.json', description: 'rate limit exceeded (Part 1 §7)' },
    '500': { description: 'server error (Part 1 §7)' },
  },
  // Part 2 §7, row by row.
  search: {
    '400': { description: 'invalid parameters (Part 2 §7)' },
    '401': { description: 'invalid key (Part 2 §7)' },
    '429': { schema: 'search/error-429.json', description: 'rate limit (Part 2 §7; the body of Part 1 §7)' },
    '500': { description: 'server error (Part 2 §7)' },
  },
  moderation: {
    '400': { description: 'Part 2 §7' },
    '401': { description: 'Part 2 §7' },
    '403': { description: 'Part 2 §7' },
    '404': { description: 'Part 2 §7' },
    '429': { schema: 'moderation/error-429.json', description: 'rate limit (Part 2 §7; the body of Part 1 §7)' },
    '500': { description: 'Part 2 §7' },
  },
  // Part 2 §7 adds only the unsupported duration; the rest are Part 1 §7's "across endpoints" (Part 2 keeps Part 1's
  // error conventions): an unknown video id is a 404 (P1-7-video-unknown-404), a model above the tier a 403.
  videos: {
    '400': { description: 'an unsupported duration (Part 2 §7)' },
    '401': { description: 'invalid or missing key (Part 1 §7)' },
    '403': { description: 'no permission (Part 1 §7)' },
    '404': { description: 'resource missing (Part 1 §7; its body is not shown)' },
    '429': { schema: 'common/compatible-429.json', description: 'rate limit exceeded (Part 1 §7)' },
    '500': { description: 'server error (Part 1 §7; its body is not shown)' },
  },
  synthesis: {
    '400': { schema: 'synthesize/error-body.json', requirement: SYNTHESIS_ERROR_BODY, description: 'Part 2 §7' },
    '401': { schema: 'synthesize/error-body.json', requirement: SYNTHESIS_ERROR_BODY, description: 'Part 2 §7' },
    '413': {
      schema: 'synthesize/error-body.json',
      requirement: SYNTHESIS_ERROR_BODY,
      description: 'text too large (Part 2 §7)',
    },
    '429': { schema: 'synthesize/error-body.json', requirement: SYNTHESIS_ERROR_BODY, description: 'Part 2 §7' },
    '500': { schema: 'synthesize/error-body.json', description: 'Part 2 §7' },
  },
  // Part 2 §7 has no row for the native interface: Part 1 §7's statuses across endpoints (a model the interface
  // does not serve is a missing resource, one above the tier no permission).
  native: {
    '400': { description: 'invalid request (Part 1 §7)' },
    '401': { description: 'invalid or missing key (Part 1 §7)' },
    '403': { description: 'no permission (Part 1 §7)' },
    '404': { description: 'resource missing (Part 1 §7)' },
    '429': { description: 'rate limit exceeded (Part 1 §7; the native body is not shown)' },
    '500': { description: 'server error (Part 1 §7)' },
  },
}

const NOT_SHOWN = (where: string): Body => ({ notShown: `The response body is not shown (${where}).` })
const json = (schema: string): Record<string, Body> => ({ 'application/json': { schema } })

export interface RouteAnswer {
  answer: Answer
  dialect: Dialect
}

/** Keyed by the route as schemas/routes.json writes it. */
export const ROUTE_ANSWERS: Record<string, RouteAnswer> = {
  'GET /user/v1/credit': { answer: { status: '200', bodies: json('account/credit.json') }, dialect: 'usage' },
  'GET /user/v1/transactions': {
    answer: { status: '200', bodies: json('account/transactions-list.json') },
    dialect: 'usage',
  },
  'GET /v1/models': {
    answer: {
      status: '200',
      bodies: {
        'application/json': {
          oneOf: [{ listOf: 'models/list-item.json' }, { schema: 'models/alternate-list.json' }],
          why: 'Bearer gives the compatible list, x-api-key the alternate one (Part 1 §4.3)',
        },
      },
    },
    dialect: 'compatible',
  },
  'GET /v1/models/{model_id}': {
    answer: {
      status: '200',
      bodies: {
        'application/json': {
          oneOf: [{ schema: 'models/retrieve.json' }, { schema: 'models/alternate-retrieve.json' }],
          why: 'Bearer gives the compatible object, x-api-key the alternate one (Part 1 §4.3)',
        },
      },
    },
    dialect: 'compatible',
  },
  'GET /public/models': {
    answer: { status: '200', bodies: { 'application/json': { listOf: 'models/list-item.json' } } },
    dialect: 'compatible',
  },
  'POST /v1/files': { answer: { status: '200', bodies: json('files/file.json') }, dialect: 'compatible' },
  'GET /v1/files': { answer: { status: '200', bodies: json('files/list.json') }, dialect: 'compatible' },
  'GET /v1/files/{file_id}': { answer: { status: '200', bodies: json('files/file.json') }, dialect: 'compatible' },
  'DELETE /v1/files/{file_id}': {
    answer: { status: '2XX', bodies: { 'application/json': NOT_SHOWN('Part 1 §4.4') } },
    dialect: 'compatible',
  },
  'POST /v1/responses': {
    answer: {
      status: '200',
      bodies: {
        'application/json': { schema: 'responses/response.json' },
        'text/event-stream': {
          events: [
            'responses/events/response-created.json',
            'responses/events/output-text-delta.json',
            'responses/events/output-text-done.json',
            'responses/events/function-call-arguments-delta.json',
            'responses/events/function-call-arguments-done.json',
            'responses/events/response-terminal.json',
          ],
        },
      },
    },
    dialect: 'compatible',
  },
  'GET /v1/responses/{response_id}': {
    answer: { status: '200', bodies: json('responses/response.json') },
    dialect: 'compatible',
  },
  'GET /v1/responses/{response_id}/input_items': {
    answer: { status: '200', bodies: { 'application/json': NOT_SHOWN('Part 1 §4.5') } },
    dialect: 'compatible',
  },
  'POST /v1/responses/{response_id}/cancel': {
    answer: { status: '200', bodies: { 'application/json': NOT_SHOWN('Part 1 §4.5') } },
    dialect: 'compatible',
  },
  'POST /v1/chat/completions': {
    answer: {
      status: '200',
      bodies: {
        'application/json': { schema: 'chat/completion.json' },
        'text/event-stream': { events: ['chat/chunk.json'] },
      },
    },
    dialect: 'compatible',
  },
  ...Object.fromEntries(
    [
      'POST /v1/embeddings',
      'POST /v1/completions',
      'POST /v1/images/generations',
      'POST /v1/images/edits',
      'POST /v1/messages',
    ].map((route) => [
      route,
      { answer: { status: '200', bodies: { 'application/json': NOT_SHOWN('Part 1 §4.8') } }, dialect: 'compatible' },
    ]),
  ),
  'POST /v1/videos': { answer: { status: '2XX', bodies: json('videos/job.json') }, dialect: 'videos' },
  'GET /v1/videos': { answer: { status: '200', bodies: json('videos/list.json') }, dialect: 'videos' },
  'GET /v1/videos/{video_id}': { answer: { status: '200', bodies: json('videos/job.json') }, dialect: 'videos' },
  'DELETE /v1/videos/{video_id}': {
    answer: { status: '2XX', bodies: { 'application/json': NOT_SHOWN('Part 2 §4.1') } },
    dialect: 'videos',
  },
  'GET /v1/videos/{video_id}/content': {
    answer: {
      status: '200',
      bodies: { 'video/*': { bytes: 'the video, downloadable once the job is completed (Part 2 §3)' } },
    },
    dialect: 'videos',
  },
  'POST /v1/videos/{video_id}/remix': { answer: { status: '2XX', bodies: json('videos/job.json') }, dialect: 'videos' },
  'POST /v1/audio/speech': {
    answer: {
      status: '200',
      bodies: {
        'audio/*': { bytes: 'the speech in the requested format (Part 2 §4.2)' },
        'text/event-stream': {
          notShown: 'speech events with stream_format sse (Part 2 §6); their payloads are not shown',
        },
      },
    },
    dialect: 'compatible',
  },
  'POST /v1/audio/transcriptions': {
    answer: {
      status: '200',
      bodies: {
        'application/json': {
          oneOf: [
            { schema: 'audio/transcription-object.json' },
            { schema: 'audio/verbose-json.json' },
            { schema: 'audio/diarized-json.json' },
          ],
          why: 'by response_format (Part 2 §4.3)',
        },
        'text/plain': { text: true },
        'text/event-stream': {
          events: ['audio/transcript-delta.json', 'audio/transcript-done.json', 'audio/transcript-segment.json'],
        },
      },
    },
    dialect: 'compatible',
  },
  'POST /v1/audio/translations': {
    answer: {
      status: '200',
      bodies: { 'application/json': { schema: 'audio/transcription-object.json' }, 'text/plain': { text: true } },
    },
    dialect: 'compatible',
  },
  'POST /v1/search': { answer: { status: '200', bodies: json('search/result.json') }, dialect: 'search' },
  'POST /v1/search/{search_tool_name}': {
    answer: { status: '200', bodies: json('search/result.json') },
    dialect: 'search',
  },
  'POST /v1/ocr': { answer: { status: '200', bodies: json('ocr/result.json') }, dialect: 'compatible' },
  'POST /v1/moderations': {
    answer: { status: '200', bodies: json('moderation/moderation.json') },
    dialect: 'moderation',
  },
  'POST /v1beta/models/{model}:generateContent': {
    answer: { status: '200', bodies: json('native/generate-response.json') },
    dialect: 'native',
  },
  'POST /v1beta/models/{model}:streamGenerateContent': {
    answer: {
      status: '200',
      bodies: {
        'application/json': { arrayOf: 'native/stream-chunk.json' },
        'text/event-stream': { events: ['native/stream-chunk.json'] },
      },
    },
    dialect: 'native',
  },
  'POST /v1/text:synthesize': {
    answer: { status: '200', bodies: json('synthesize/synthesis-response.json') },
    dialect: 'synthesis',
  },
}

/**
 * The schema a route's 2xx JSON answer is judged by, where the route has one body schema (not a choice the request
 * makes, such as a transcription's format); undefined where none is shown.
 */
export function answerSchemaOf(route: string): string | undefined {
  const body = ROUTE_ANSWERS[route]?.answer.bodies['application/json']
  return body !== undefined && 'schema' in body ? body.schema : undefined
}

/**
 * The error answers of a route whose body §7 shows and a requirement states: by status, the body's schema and that
 * requirement. Empty where §7 shows none (Part 1's 400 and 404 bodies are not shown).
 */
export function statedRefusalBodies(route: string): Map<number, { schema: string; requirement: string }> {
  const dialect = ROUTE_ANSWERS[route]?.dialect
  const stated = new Map<number, { schema: string; requirement: string }>()
  for (const [status, s] of Object.entries(dialect === undefined ? {} : DIALECTS[dialect]))
    if (s.schema !== undefined && s.requirement !== undefined)
      stated.set(Number(status), { schema: s.schema, requirement: s.requirement })
  return stated
}
