/**
 * Stored responses (Part 1 §4.5: store true keeps a response for retrieval, for its input items and for
 * previous_response_id chains), per gateway instance and per account. In memory and bounded, like the
 * transaction store: the oldest entries go first, so a long load test cannot exhaust memory.
 */
import type { GatewayState } from '../state.ts'
import type { Draft } from './response-object.ts'

export interface StoredResponse {
  readonly accountId: string
  readonly draft: Draft
  /** What retrieval answers now: the finished response, or a background job's current snapshot. */
  body: Record<string, unknown>
  readonly inputItems: readonly Record<string, unknown>[]
  /** Pending background transitions, cleared on cancel, eviction and close. */
  timers: NodeJS.Timeout[]
  /** Kept only to be continued (a fault's): created with store false, so not retrievable. */
  readonly chainOnly?: boolean
}

// Stored responses hold their input and output: a small bound keeps a saturated /v1/responses within memory.
export const DEFAULT_RESPONSE_CAPACITY = 2_000

export class ResponseStore {
  readonly #entries = new Map<string, StoredResponse>()

  readonly capacity: number

  constructor(capacity: number = DEFAULT_RESPONSE_CAPACITY) {
    this.capacity = capacity
  }

  put(entry: StoredResponse): void {
    if (this.#entries.size >= this.capacity) {
      // A Map iterates in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#drop(oldest)
    }
    this.#entries.set(entry.draft.id, entry)
  }

  /** The caller's own stored response; another account's id is as unknown as a made-up one. */
  get(id: string, accountId: string): StoredResponse | undefined {
    const entry = this.#entries.get(id)
    return entry && entry.accountId === accountId ? entry : undefined
  }

  close(): void {
    for (const id of [...this.#entries.keys()]) this.#drop(id)
  }

  #drop(id: string): void {
    const entry = this.#entries.get(id)
    for (const timer of entry?.timers ?? []) clearTimeout(timer)
    this.#entries.delete(id)
  }
}

const stores = new WeakMap<GatewayState, ResponseStore>()

/** The store of one gateway; kept beside its state so that gateways running side by side share nothing. */
export function responseStore(state: GatewayState): ResponseStore {
  let store = stores.get(state)
  if (!store) {
    store = new ResponseStore()
    stores.set(state, store)
  }
  return store
}
