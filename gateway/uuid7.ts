/**
 * UUID version 7 (RFC 9562 section 5.7): a 48-bit big-endian Unix millisecond timestamp, the version
 * nibble 7, 12 bits rand_a, the variant bits 10 and 62 bits rand_b.
 *
 * Monotonicity follows RFC 9562 section 6.2, method 1: rand_a is a counter that starts at a random
 * value in its lower half (leaving room to count up) each new millisecond and is incremented for every
 * further id in the same millisecond. If the counter overflows, or the clock steps backwards, the
 * timestamp is advanced past the last one used, so ids from one generator always sort strictly
 * increasing.
 */
import { randomFillSync } from 'node:crypto'
import type { Clock } from './clock.ts'

const COUNTER_MAX = 0xfff
const COUNTER_SEED_SPAN = 0x800

export type UuidGenerator = () => string

/**
 * Random bytes drawn from the CSPRNG in blocks rather than one small call per id, which would cost every request
 * a system call. The bytes are the same kind either way; each is used once.
 */
class RandomPool {
  readonly bytes = Buffer.alloc(4096)
  #offset = this.bytes.length

  /** Where `count` fresh bytes start in `bytes`, valid until the next call (an index: a view would be an object per id). */
  take(count: number): number {
    if (this.#offset + count > this.bytes.length) {
      randomFillSync(this.bytes)
      this.#offset = 0
    }
    const start = this.#offset
    this.#offset += count
    return start
  }
}

export function createUuid7Generator(clock: Clock): UuidGenerator {
  let lastMs = -1
  let counter = 0
  const random = new RandomPool()

  return () => {
    const now = Math.floor(clock.now())
    if (now > lastMs) {
      lastMs = now
      counter = randomCounterSeed(random)
    } else if (counter < COUNTER_MAX) {
      counter += 1
    } else {
      lastMs += 1
      counter = randomCounterSeed(random)
    }
    return formatUuid7(lastMs, counter, random.bytes, random.take(8))
  }
}

function randomCounterSeed(random: RandomPool): number {
  const at = random.take(2)
  return (((random.bytes[at] ?? 0) << 8) | (random.bytes[at + 1] ?? 0)) % COUNTER_SEED_SPAN
}

/** Two lower-case hex digits for each byte value, so formatting needs no Buffer and no slicing. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

function hexAt(bytes: Uint8Array, index: number): string {
  return HEX[(bytes[index] ?? 0) & 0xff]!
}

/**
 * Lays out the fields; the 8 bytes of `randB` from `at` supply the 62 random bits (the top two bits are replaced by
 * the variant).
 */
export function formatUuid7(ms: number, randA: number, randB: Uint8Array, at = 0): string {
  // 48-bit timestamp: split so no step needs more than 32-bit bitwise arithmetic.
  const high = Math.floor(ms / 2 ** 16)
  const low = ms % 2 ** 16
  return (
    HEX[(high >>> 24) & 0xff]! +
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | ((randA >>> 8) & 0x0f)]! +
    HEX[randA & 0xff]! +
    '-' +
    HEX[0x80 | ((randB[at] ?? 0) & 0x3f)]! +
    hexAt(randB, at + 1) +
    '-' +
    hexAt(randB, at + 2) +
    hexAt(randB, at + 3) +
    hexAt(randB, at + 4) +
    hexAt(randB, at + 5) +
    hexAt(randB, at + 6) +
    hexAt(randB, at + 7)
  )
}

/** The millisecond timestamp carried by a v7 id. */
export function uuid7Timestamp(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
