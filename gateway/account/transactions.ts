/**
 * The transaction store: one record per call (Part 1 section 2.2), kept in memory in a ring buffer
 * holding the newest `capacity` transactions of all accounts together. The reference promises 90 days
 * of retention; a simulator that runs for minutes needs a bound instead, so that a long load test
 * cannot exhaust memory. Records are added synchronously while the response is being sent, so a
 * transaction can be listed as soon as its call has answered.
 */
import type { TokenCounts } from '../context.ts'
import { SetupError } from '../errors.ts'

/** The public record of section 2.2, exactly as the usage endpoints return it. */
export interface TransactionRecord {
  readonly id: string
  readonly created_at: string
  readonly requested_at: string
  readonly safety_identifier: string | null
  readonly model: string
  readonly provider: string
  readonly status_code: number
  readonly stream: boolean
  readonly tokens: Readonly<TokenCounts>
}

export interface StoredTransaction {
  readonly record: TransactionRecord
  /** Null for unauthenticated calls, which no account can list. */
  readonly accountId: string | null
  readonly apiKeyId: number | null
  readonly path: string
  /** created_at in epoch milliseconds, for the time filters. */
  readonly createdMs: number
}

/**
 * The reference keeps transactions 90 days; a simulator needs a memory bound instead, as a real gateway keeps only
 * a recent window in memory and the rest in its database. Ten thousand is more than any suite lists back (the
 * largest burst a self-test checks is 500 calls), and keeps a minute of saturation within the bench's memory goal:
 * the ring's entries were the part of the gateway's heap that grew with a saturation run's length.
 */
export const DEFAULT_TRANSACTION_CAPACITY = 10_000

export class TransactionStore {
  readonly #ring: StoredTransaction[] = []
  /** The id of each entry of #ring, at the same index: an entry may build its record only when it is read. */
  readonly #ids: string[] = []
  /** Index in #ring of the next write once the ring is full (its oldest entry). */
  #next = 0
  /** The entries by id, built by the first lookup after a call: kept current, it would cost every call a hash. */
  #byId: Map<string, StoredTransaction> | undefined

  readonly capacity: number

  constructor(capacity: number = DEFAULT_TRANSACTION_CAPACITY) {
    this.capacity = capacity
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new SetupError('OPTION_INVALID', `transaction capacity must be a positive integer, got ${capacity}`)
  }

  get size(): number {
    return this.#ring.length
  }

  /** `id` is the record's id, given where reading the record would build it. */
  add(entry: StoredTransaction, id: string = entry.record.id): void {
    if (this.#ring.length < this.capacity) {
      this.#ring.push(entry)
      this.#ids.push(id)
    } else {
      this.#ring[this.#next] = entry
      this.#ids[this.#next] = id
      this.#next = (this.#next + 1) % this.capacity
    }
    this.#byId = undefined
  }

  findById(id: string): StoredTransaction | undefined {
    if (this.#byId === undefined) {
      const byId = new Map<string, StoredTransaction>()
      // Oldest first: ids repeat only under a fault, and then the newest record is the one found.
      const count = this.#ring.length
      const oldest = count < this.capacity ? 0 : this.#next
      for (let i = 0; i < count; i += 1) {
        const at = (oldest + i) % count
        byId.set(this.#ids[at]!, this.#ring[at]!)
      }
      this.#byId = byId
    }
    return this.#byId.get(id)
  }

  /** Newest recorded first. */
  *newestFirst(): IterableIterator<StoredTransaction> {
    const count = this.#ring.length
    const oldest = count < this.capacity ? 0 : this.#next
    for (let i = count - 1; i >= 0; i -= 1) {
      yield this.#ring[(oldest + i) % count]!
    }
  }
}
