/**
 * Cursor paging over a list in a stable order, as the alternate model list uses it (Part 1 section
 * 4.3). The reference names after_id, before_id, limit, first_id, last_id and has_more without their
 * semantics; these are the usual ones:
 *
 * - after_id: items strictly after that id; before_id: items strictly before it; both: between them;
 * - before_id alone pages backwards: the `limit` items immediately before it;
 * - has_more: more items exist beyond this page in the paging direction.
 */
import { invalidParameter } from '../errors.ts'

export interface CursorRequest {
  readonly afterId: string | undefined
  readonly beforeId: string | undefined
  /** Page size; Infinity for "every remaining item". */
  readonly limit: number
}

export interface CursorPage<T> {
  readonly items: readonly T[]
  readonly firstId: string | null
  readonly lastId: string | null
  readonly hasMore: boolean
}

export function pageByCursor<T extends { readonly id: string }>(
  all: readonly T[],
  request: CursorRequest,
): CursorPage<T> {
  const start = request.afterId === undefined ? 0 : indexOf(all, request.afterId, 'after_id') + 1
  const end = request.beforeId === undefined ? all.length : indexOf(all, request.beforeId, 'before_id')
  let items: readonly T[]
  let hasMore: boolean
  if (start >= end) {
    items = []
    hasMore = false
  } else if (request.beforeId !== undefined && request.afterId === undefined) {
    const from = Math.max(start, end - request.limit)
    items = all.slice(from, end)
    hasMore = from > start
  } else {
    const to = Math.min(end, start + request.limit)
    items = all.slice(start, to)
    hasMore = to < end
  }
  return { items, firstId: items[0]?.id ?? null, lastId: items.at(-1)?.id ?? null, hasMore }
}

function indexOf<T extends { readonly id: string }>(all: readonly T[], id: string, param: string): number {
  const index = all.findIndex((item) => item.id === id)
  if (index < 0) throw invalidParameter(param, `${param} '${id}' does not name an item of this list`)
  return index
}
