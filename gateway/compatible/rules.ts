/** Rules of the other compatible endpoints (Part 1 §4.8, §7), read by their routes. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { CompatibleFault } from './faults.ts'

export type CompatibleRules = Readonly<ReturnType<typeof compatibleRules>>

export function compatibleRules(faults: FaultSet) {
  const bent = bentBy<CompatibleFault>(faults)
  return {
    // Section 7: a missing required field is 400; the fault serves a completion without model by the first one.
    requireModel: !bent('compat-missing-model-defaulted'),
    // Section 7: an unknown model is 404; the fault serves an embedding by the first embedding model.
    refuseUnknownModel: !bent('compat-unknown-model-served'),
    // Section 7: a body that is not JSON is 400; the fault answers 500, as if the parse error escaped.
    malformedJsonAs400: !bent('compat-malformed-json-500'),
    // Section 4.8: embeddings are served; the fault's backend fails every valid call.
    servesEmbeddings: !bent('compat-embeddings-500'),
  }
}
