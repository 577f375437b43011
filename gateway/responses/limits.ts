/**
 * The limits of a create's body that its request schema states: read by the reader (validate.ts) and by the rules
 * (rules.ts), which bend some of them, so neither of those imports the other's module.
 */
import { limitOf, mapEdgesOf, rangeOf } from '../../common/request-schemas.ts'

const CREATE = 'POST /v1/responses'
const metadata = mapEdgesOf(CREATE, 'body', 'metadata')

/** Section 8.5 and the parameter table of section 4.5, as the request schema states them. */
export const RESPONSE_EDGES = {
  metadataPairs: metadata.pairs,
  metadataKeyChars: metadata.keyChars,
  metadataValueChars: metadata.valueChars,
  temperature: rangeOf(CREATE, 'body', 'temperature'),
  topLogprobs: rangeOf(CREATE, 'body', 'top_logprobs'),
  safetyIdentifierChars: limitOf(CREATE, 'body', 'safety_identifier', 'maxLength'),
}
