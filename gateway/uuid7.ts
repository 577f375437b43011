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
import { randomBytes } from 'node:crypto'
import type { Clock } from './clock.ts'

const COUNTER_MAX = 0xfff
const COUNTER_SEED_SPAN = 0x800

export type UuidGenerator = () => string

export function createUuid7Generator(clock: Clock): UuidGenerator {
  let lastMs = -1
  let counter = 0

  return () => {
    const now = Math.floor(clock.now())
    if (now > lastMs) {
      lastMs = now
      counter = randomCounterSeed()
    } else if (counter < COUNTER_MAX) {
      counter += 1
    } else {
      lastMs += 1
      counter = randomCounterSeed()
    }
    return formatUuid7(lastMs, counter, randomBytes(8))
  }
}

function randomCounterSeed(): number {
  const [hi = 0, lo = 0] = randomBytes(2)
  return ((hi << 8) | lo) % COUNTER_SEED_SPAN
}

/** Lays out the fields; `randB` supplies the 62 random bits (its top two bits are replaced by the variant). */
export function formatUuid7(ms: number, randA: number, randB: Uint8Array): string {
  const bytes = new Uint8Array(16)
  // 48-bit timestamp: split so no step needs more than 32-bit bitwise arithmetic.
  const high = Math.floor(ms / 2 ** 16)
  const low = ms % 2 ** 16
  bytes[0] = (high >>> 24) & 0xff
  bytes[1] = (high >>> 16) & 0xff
  bytes[2] = (high >>> 8) & 0xff
  bytes[3] = high & 0xff
  bytes[4] = (low >>> 8) & 0xff
  bytes[5] = low & 0xff
  bytes[6] = 0x70 | ((randA >>> 8) & 0x0f)
  bytes[7] = randA & 0xff
  for (let i = 0; i < 8; i += 1) bytes[8 + i] = randB[i] ?? 0
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f)
  const hex = Buffer.from(bytes).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The millisecond timestamp carried by a v7 id. */
export function uuid7Timestamp(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
