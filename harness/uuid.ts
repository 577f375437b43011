/** UUID checks for svc-request-id (Part 1 section 4.1: a UUID v7). RFC 9562 layout. */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type UuidV7Check = { ok: true; timestampMs: number } | { ok: false; reason: string }

/** Checks the textual form, the version nibble (7) and the variant bits (10), and extracts the 48-bit timestamp. */
export function checkUuidV7(value: string | undefined): UuidV7Check {
  if (value === undefined || value === '') return { ok: false, reason: 'missing' }
  if (!UUID_PATTERN.test(value)) return { ok: false, reason: `"${value}" is not a UUID (8-4-4-4-12 hex digits)` }
  const hex = value.replaceAll('-', '')
  const version = hex[12]
  if (version !== '7') return { ok: false, reason: `"${value}" is a UUID version ${version}, not 7` }
  // The variant is the top two bits of the 17th hex digit: 10xx means 8, 9, a or b.
  const variant = parseInt(hex[16] ?? '0', 16)
  if ((variant & 0b1100) !== 0b1000)
    return { ok: false, reason: `"${value}" does not have the RFC 9562 variant bits 10` }
  return { ok: true, timestampMs: parseInt(hex.slice(0, 12), 16) }
}

/** A UUID v7 for the given time, e.g. a client trace id shaped like the target's own ids. */
export function makeUuidV7(
  timeMs: number = Date.now(),
  random: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n)),
): string {
  const bytes = random(16)
  const time = BigInt(timeMs)
  for (let i = 0; i < 6; i += 1) bytes[i] = Number((time >> BigInt(8 * (5 - i))) & 0xffn)
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f)
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f)
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
