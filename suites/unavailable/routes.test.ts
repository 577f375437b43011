/**
 * Every route of the announced but unavailable surfaces (Part 1 §1.6, §4.6, §4.9, §7) answers, with a JSON body:
 * an error (the unsupported-route error, whose status §7 does not show) or, where the target offers the surface,
 * a 2xx. What each answered is recorded; the planned shapes are judged by the other files of this folder.
 */
import { describe } from 'vitest'
import { expectJson, expectKeyAccepted, expectThat } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { runMetadata } from '../../harness/worker/run-tag.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { catalogueFixture } from '../chat/fixtures.ts'
import { answerOf, cleanUp, isOffered, PLACEHOLDER_FILE } from './planned.ts'

const api = target()
const catalogue = catalogueFixture(api)

interface PlannedRoute {
  method: 'GET' | 'POST'
  path: string
  body?: (model: string) => Record<string, unknown>
  /** How to undo a creation, from the created object's id, where the surface turns out to be offered. */
  undo?: (id: string) => { method: 'POST' | 'DELETE'; path: string }
}

/** The run tag of what a route may create (§4.9 defines metadata on batches, assistants and threads). */
const tagged = (): Record<string, unknown> => ({ metadata: runMetadata(runConfig().runId) })

const MISSING = { batch: 'batch_gc_missing', thread: 'thread_gc_missing', job: 'ftjob-gc-missing' }

const ROUTES: readonly PlannedRoute[] = [
  { method: 'POST', path: '/v1/responses/input_tokens', body: (model) => ({ model, input: 'Hello, gateway.' }) },
  {
    method: 'POST',
    path: '/v1/batches',
    body: () => ({
      input_file_id: PLACEHOLDER_FILE,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      ...tagged(),
    }),
    undo: (id) => ({ method: 'POST', path: `/v1/batches/${id}/cancel` }),
  },
  { method: 'GET', path: '/v1/batches' },
  { method: 'GET', path: `/v1/batches/${MISSING.batch}` },
  { method: 'POST', path: `/v1/batches/${MISSING.batch}/cancel`, body: () => ({}) },
  {
    method: 'POST',
    path: '/v1/assistants',
    body: (model) => ({ model, name: 'gc-conformance', ...tagged() }),
    undo: (id) => ({ method: 'DELETE', path: `/v1/assistants/${id}` }),
  },
  {
    method: 'POST',
    path: '/v1/threads',
    body: () => tagged(),
    undo: (id) => ({ method: 'DELETE', path: `/v1/threads/${id}` }),
  },
  { method: 'POST', path: `/v1/threads/${MISSING.thread}/messages`, body: () => ({ role: 'user', content: 'Hello.' }) },
  { method: 'POST', path: `/v1/threads/${MISSING.thread}/runs`, body: () => ({ assistant_id: 'asst_gc_missing' }) },
  {
    method: 'POST',
    path: '/v1/fine-tuning/jobs',
    body: (model) => ({ model, training_file: PLACEHOLDER_FILE }),
    undo: (id) => ({ method: 'POST', path: `/v1/fine-tuning/jobs/${id}/cancel` }),
  },
  { method: 'GET', path: '/v1/fine-tuning/jobs' },
  { method: 'GET', path: `/v1/fine-tuning/jobs/${MISSING.job}` },
  { method: 'POST', path: `/v1/fine-tuning/jobs/${MISSING.job}/cancel`, body: () => ({}) },
  { method: 'GET', path: `/v1/fine-tuning/jobs/${MISSING.job}/events` },
  { method: 'POST', path: `/v1/fine-tuning/jobs/${MISSING.job}/pause`, body: () => ({}) },
  { method: 'POST', path: `/v1/fine-tuning/jobs/${MISSING.job}/resume`, body: () => ({}) },
  { method: 'GET', path: `/v1/fine-tuning/jobs/${MISSING.job}/checkpoints` },
]

async function call(route: PlannedRoute): Promise<Exchange> {
  if (route.method === 'GET') return api.get(route.path)
  const { usable } = await catalogue()
  const model = usable.find((m) => m.mode === 'chat')?.id ?? 'gc-placeholder-chat'
  return api.post(route.path, route.body?.(model) ?? {})
}

describe('announced but unavailable routes answer an error or the planned surface (Part 1 §1.6, §7)', () => {
  for (const route of ROUTES) {
    check(
      'P1-1.6-unavailable-route',
      `${route.method} ${route.path} answers an error status or a 2xx, with a JSON body`,
      async () => {
        const ex = await call(route)
        expectKeyAccepted(ex)
        observe('unavailable route answer', `${route.method} ${route.path}: ${answerOf(ex)}`)
        const created = isObject(ex.json) && typeof ex.json.id === 'string' ? ex.json.id : undefined
        if (isOffered(ex) && created !== undefined && route.undo) {
          const undo = route.undo(created)
          await cleanUp(api, undo.method, undo.path)
        }
        expectThat(
          isOffered(ex) || ex.status >= 400,
          'an error status (4xx or 5xx: the unsupported-route error) or a 2xx',
          `status ${ex.status}`,
          ex,
        )
        expectJson(ex)
      },
    )
  }
})
