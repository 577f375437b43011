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

/** Each byte value's two lower-case hex digits, as character codes, high digit first. */
const HEX_CODES = new Uint8Array(512)
for (let byte = 0; byte < 256; byte += 1) {
  const digits = byte.toString(16).padStart(2, '0')
  HEX_CODES[2 * byte] = digits.charCodeAt(0)
  HEX_CODES[2 * byte + 1] = digits.charCodeAt(1)
}

/**
 * The id's characters, written in place and read out as one flat string: an id concatenated from its pieces is a
 * tree of partial strings, which every header check would first have to copy into one.
 */
const TEXT = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1')

function putHex(offset: number, byte: number): void {
  TEXT[offset] = HEX_CODES[2 * byte]!
  TEXT[offset + 1] = HEX_CODES[2 * byte + 1]!
}

/**
 * Lays out the fields; the 8 bytes of `randB` from `at` supply the 62 random bits (the top two bits are replaced by
 * the variant).
 */
export function formatUuid7(ms: number, randA: number, randB: Uint8Array, at = 0): string {
  // 48-bit timestamp: split so no step needs more than 32-bit bitwise arithmetic.
  const high = Math.floor(ms / 2 ** 16)
  const low = ms % 2 ** 16
  putHex(0, (high >>> 24) & 0xff)
  putHex(2, (high >>> 16) & 0xff)
  putHex(4, (high >>> 8) & 0xff)
  putHex(6, high & 0xff)
  putHex(9, (low >>> 8) & 0xff)
  putHex(11, low & 0xff)
  putHex(14, 0x70 | ((randA >>> 8) & 0x0f))
  putHex(16, randA & 0xff)
  putHex(19, 0x80 | ((randB[at] ?? 0) & 0x3f))
  putHex(21, (randB[at + 1] ?? 0) & 0xff)
  for (let i = 0; i < 6; i += 1) putHex(24 + 2 * i, (randB[at + 2 + i] ?? 0) & 0xff)
  return TEXT.toString('latin1')
}

/** The millisecond timestamp carried by a v7 id. */
export function uuid7Timestamp(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
