/**
 * Choices the reference leaves open, made as real providers make them. `--real` switches every one on; `--variation
 * NAME` one at a time. A suite that asserts only what the reference states passes against every combination: the
 * self-tests run the whole suite with all of them on (test/cli/real-variation.test.ts), so a check that demands one
 * choice where the reference allows several fails there.
 *
 * Unlike a fault (faults.ts), a variation is conformant. Each names the words of the reference that leave it open.
 */

export const VARIATIONS = {
  'real-names':
    "the ids the reference writes with a neutral word answer under their makers' names (REAL_NAMES); Part 2 neutralises them",
  // headers, auth, models, chat, compatible, unavailable
  // account, tiers, files
  // responses, moderation
  // videos
  // audio, synthesize, native
  // search, ocr
} as const satisfies Record<string, string>

export type VariationName = keyof typeof VARIATIONS

export const VARIATION_NAMES = Object.keys(VARIATIONS) as VariationName[]

/**
 * The names real providers give the ids the reference writes with a neutral word, as the gateway answers them under
 * the `real-names` variation: reference name -> target name. The suite is told them through GATEWAY_NAMES.
 */
export const REAL_NAMES: Readonly<Record<string, string>> = {
  // videos
  // audio, synthesize, native
  // search, ocr
}

export function toVariationSet(names: readonly string[]): ReadonlySet<VariationName> {
  const unknown = names.filter((n) => !(n in VARIATIONS))
  if (unknown.length > 0)
    throw new Error(
      `unknown variation ${unknown.join(', ')}; known: ${VARIATION_NAMES.join(', ') || '(none)'} (--variation list)`,
    )
  return new Set(names as VariationName[])
}

/** `--variation list`: one line per variation. */
export function describeVariations(): string {
  const width = Math.max(0, ...VARIATION_NAMES.map((n) => n.length))
  return VARIATION_NAMES.map((name) => `${name.padEnd(width)}  ${VARIATIONS[name]}`).join('\n')
}
