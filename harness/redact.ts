/**
 * Keys never reach a report, a log or a failure message. A Redactor knows every key value of the run and
 * replaces each occurrence, wherever it stands (headers, URLs, bodies echoed back by a target), with a marker
 * naming the environment variable, which is safe to print and tells the reader which key was used.
 */
import { KEY_ENV, type KeySlot } from './keys.ts'

/** Request headers whose values are credentials even when we do not know the value (a key echoed by a proxy). */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'x-native-api-key',
  'proxy-authorization',
  'cookie',
  'set-cookie',
])

export class Redactor {
  readonly #pairs: Array<[string, string]>
  readonly #credentialHeaders: ReadonlySet<string>

  /** `credentialHeaders`: more header names that carry keys, such as the target's native key header. */
  constructor(keys: Partial<Record<KeySlot, string>>, credentialHeaders: readonly string[] = []) {
    this.#credentialHeaders = new Set([...CREDENTIAL_HEADERS, ...credentialHeaders.map((h) => h.toLowerCase())])
    // Longest first, so a key that contains another key is replaced whole.
    this.#pairs = Object.entries(keys)
      .filter((entry): entry is [KeySlot, string] => typeof entry[1] === 'string' && entry[1] !== '')
      .map(([slot, value]): [string, string] => [value, `<${KEY_ENV[slot]}>`])
      .sort((a, b) => b[0].length - a[0].length)
  }

  text(value: string): string {
    let out = value
    for (const [secret, marker] of this.#pairs) out = out.replaceAll(secret, marker)
    return out
  }

  /**
   * Header values: known keys become markers; any other credential header keeps only its scheme, since an
   * unknown value there may still be somebody's secret.
   */
  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) {
      const redacted = this.text(value)
      if (
        this.#credentialHeaders.has(name.toLowerCase()) &&
        redacted === value &&
        !this.#isDeliberatelyInvalid(value)
      ) {
        const scheme = /^(\w+)\s/.exec(value)?.[1]
        out[name] = scheme ? `${scheme} <redacted>` : '<redacted>'
      } else {
        out[name] = redacted
      }
    }
    return out
  }

  /** Our own made-up invalid keys are not secrets, and showing them makes auth failures readable. */
  #isDeliberatelyInvalid(value: string): boolean {
    return value.includes(INVALID_KEY_PREFIX)
  }
}

/** Prefix of the keys the suites invent to test refusal; a target never issued them. */
export const INVALID_KEY_PREFIX = 'gc-invalid-key-'
