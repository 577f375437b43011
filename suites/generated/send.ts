/**
 * A generated request on the wire: the route's path with its parameters, the query as text, and the body as JSON,
 * as a multipart form (a field of format binary is the file part; `{file}` there is a second of audio), as text that
 * is not JSON, or none. Through the shared client, so the call is paced, recorded and redacted like any other.
 */
import { isObject } from '../../common/json.ts'
import type { RequestSchema } from '../../common/request-schemas.ts'
import type { GeneratedCase } from '../../harness/generate/cases.ts'
import type { RequestValue } from '../../harness/generate/validate.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { type FilePart, multipartBody } from '../../harness/worker/multipart.ts'
import { runFileName } from '../../harness/worker/run-tag.ts'
import { runConfig } from '../../harness/worker/suite.ts'
import { wavTone } from '../audio/fixtures.ts'

/** A second of a tone: the audio a transcription or translation case uploads for `{file}`. */
const AUDIO = { bytes: wavTone({ seconds: 1 }), contentType: 'audio/wav', ext: 'wav' }

/** Routes that take no key (Part 1 §5): called without one, as the suites call them. */
const PUBLIC = /^\/public\//

/** A value of the query or a form as text: objects as JSON, the rest as they print. */
function asText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)
}

function pathOf(route: string, request: RequestValue): string {
  const template = route.split(' ')[1] ?? ''
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(asText(request.path?.[name] ?? '')))
}

function queryOf(request: RequestValue): Record<string, string> | undefined {
  if (request.query === undefined) return undefined
  return Object.fromEntries(Object.entries(request.query).map(([name, value]) => [name, asText(value)]))
}

/** The form's file part: the body field the schema gives format binary, or none. */
function filePart(schema: RequestSchema, body: Record<string, unknown>): FilePart | undefined {
  const entry = Object.entries(schema.properties.body?.properties ?? {}).find(
    ([name, node]) => node.format === 'binary' && name in body,
  )
  if (entry === undefined) return undefined
  const [name, node] = entry
  const value = body[name]
  if (value === '{file}')
    return {
      name,
      filename: runFileName(runConfig().runId, 'generated', AUDIO.ext),
      contentType: AUDIO.contentType,
      content: AUDIO.bytes,
    }
  return {
    name,
    filename: runFileName(runConfig().runId, 'generated', 'txt'),
    contentType: typeof node.contentMediaType === 'string' ? node.contentMediaType : 'text/plain',
    content: asText(value),
  }
}

function sendForm(api: TargetClient, schema: RequestSchema, method: string, path: string, request: RequestValue) {
  const body = isObject(request.body) ? request.body : {}
  const file = filePart(schema, body)
  const fields: Array<[string, string]> = []
  for (const [name, value] of Object.entries(body)) {
    if (name === file?.name) continue
    // A list travels as the field repeated, as forms send one.
    for (const item of Array.isArray(value) ? value : [value]) fields.push([name, asText(item)])
  }
  const form = multipartBody(fields, file)
  return api.request({
    method,
    path,
    query: queryOf(request),
    headers: form.headers,
    body: form.chunks,
    bodyNote: form.note,
  })
}

/** Sends one case's request (its route, and a body that is not JSON if it has one), already materialised. */
export function send(
  api: TargetClient,
  schema: RequestSchema,
  c: Pick<GeneratedCase, 'route' | 'rawBody'>,
  request: RequestValue,
): Promise<Exchange> {
  const [method = 'GET'] = c.route.split(' ')
  const path = pathOf(c.route, request)
  const query = queryOf(request)
  const key = PUBLIC.test(path) ? { key: null } : {}
  if (c.rawBody !== undefined)
    return api.request({
      method,
      path,
      query,
      headers: { 'content-type': 'application/json' },
      body: c.rawBody,
      ...key,
    })
  if (schema['x-body'] === 'multipart') return sendForm(api, schema, method, path, request)
  if (schema['x-body'] === 'none' || request.body === undefined) return api.request({ method, path, query, ...key })
  return api.request({ method, path, query, json: request.body, ...key })
}
