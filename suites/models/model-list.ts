/**
 * Reading model lists. The Bearer list's envelope is not shown (Part 1 §4.3 says "list of model objects"), so
 * both a bare array and the usual `{ object: "list", data: [...] }` are accepted, and which one was seen is
 * recorded as an observation.
 */
import { fail, expectStatus } from '../../harness/assert.ts'
import { isObject } from '../../common/json.ts'
import { mapLimit, memo } from '../../harness/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/http-client.ts'
import { observe } from '../../harness/recorder.ts'

export function modelItems(ex: Exchange): unknown[] {
  const body = ex.json
  if (Array.isArray(body)) {
    observe('model list envelope', `${ex.record.path}: a bare JSON array`)
    return body
  }
  if (isObject(body) && Array.isArray(body.data)) {
    observe(
      'model list envelope',
      `${ex.record.path}: an object with data${typeof body.object === 'string' ? ` (object "${body.object}")` : ''}`,
    )
    return body.data
  }
  return fail(
    'a list of model objects: a JSON array, or an object whose data is an array',
    ex.jsonError ? `not JSON (${ex.jsonError})` : 'neither',
    ex,
  )
}

export function modelIds(items: readonly unknown[]): string[] {
  return items.flatMap((item) => (isObject(item) && typeof item.id === 'string' ? [item.id] : []))
}

interface ModelFixtures {
  list: () => Promise<{ ex: Exchange; items: unknown[] }>
  retrieved: () => Promise<Array<{ id: string; ex: Exchange }>>
}

/** The Bearer list and every model retrieved, fetched once per file by the first test that needs them. */
export function modelFixtures(api: TargetClient): ModelFixtures {
  const list = memo(async () => {
    const ex = await api.get('/v1/models')
    expectStatus(ex, 200)
    return { ex, items: modelItems(ex) }
  })
  const retrieved = memo(async () => {
    const ids = modelIds((await list()).items)
    return mapLimit(ids, 4, async (id) => ({ id, ex: await api.get(`/v1/models/${encodeURIComponent(id)}`) }))
  })
  return { list, retrieved }
}
