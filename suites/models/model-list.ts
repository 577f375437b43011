/**
 * Reading model lists. The Bearer list's envelope is not shown (Part 1 §4.3 says "list of model objects"), so
 * both a bare array and the usual `{ object: "list", data: [...] }` are accepted, and which one was seen is
 * recorded as an observation.
 */
import { expectSuccess, fail, is2xx, precondition } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { mapLimit, memo } from '../../harness/worker/helpers.ts'
import type { Exchange, TargetClient } from '../../harness/worker/http-client.ts'
import { observe } from '../../harness/worker/recorder.ts'

/** The items of a model list, or undefined when the body is no list: for set-up reads, which judge nothing. */
export function listedItems(ex: Exchange): unknown[] | undefined {
  const body = ex.json
  if (Array.isArray(body)) return body
  return isObject(body) && Array.isArray(body.data) ? body.data : undefined
}

export function modelItems(ex: Exchange): unknown[] {
  const body = ex.json
  if (Array.isArray(body)) {
    observe('model list envelope', `${ex.excerpt.path}: a bare JSON array`)
    return body
  }
  if (isObject(body) && Array.isArray(body.data)) {
    observe(
      'model list envelope',
      `${ex.excerpt.path}: an object with data${typeof body.object === 'string' ? ` (object "${body.object}")` : ''}`,
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

/**
 * The Bearer list and every model retrieved, fetched once per file by the first test that needs them. The list is
 * the subject of the checks that read it (a refusal fails them); for the retrieve checks it only names the models,
 * so there a refused list skips, naming P1-2.3-model-list. The checks run outside the memo, in the test they judge.
 */
export function modelFixtures(api: TargetClient): ModelFixtures {
  const fetchList = memo(() => api.get('/v1/models'))
  const fetchRetrieved = memo(async () => {
    const ex = await fetchList()
    const items = is2xx(ex) ? listedItems(ex) : undefined
    if (items === undefined) return { listEx: ex, all: [] }
    const ids = modelIds(items)
    const all = await mapLimit(ids, 4, async (id) => ({
      id,
      ex: await api.get(`/v1/models/${encodeURIComponent(id)}`),
    }))
    return { listEx: ex, all }
  })
  const list = async () => {
    const ex = await fetchList()
    expectSuccess(ex)
    return { ex, items: modelItems(ex) }
  }
  const retrieved = async () => {
    const { listEx, all } = await fetchRetrieved()
    precondition(
      is2xx(listEx) && listedItems(listEx) !== undefined,
      'P1-2.3-model-list',
      `GET /v1/models answered ${listEx.status}${is2xx(listEx) ? ' without a list' : ''}`,
    )
    return all
  }
  return { list, retrieved }
}
