/** The unavailable faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { eachListed, inTurn, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { UnavailableFault } from './faults.ts'

const BATCH = ['POST /v1/batches', 'GET /v1/batches/:batch_id', 'POST /v1/batches/:batch_id/cancel']

const isoCreatedAt = (batch: Record<string, unknown>) =>
  typeof batch.created_at === 'number'
    ? { ...batch, created_at: new Date(batch.created_at * 1000).toISOString() }
    : batch

/**
 * The faults of offered surfaces that only reshape an answer (../faults/answers.ts); the others act in the surfaces.
 */
export const UNAVAILABLE_ANSWER_RESHAPES: AnswerReshapes<UnavailableFault> = {
  'planned-input-tokens-string': onRoutes(['POST /v1/responses/input_tokens'], (answer) => ({
    ...answer,
    input_tokens: String(answer.input_tokens),
  })),
  'planned-batch-object-malformed': inTurn(onRoutes(BATCH, isoCreatedAt), eachListed('GET /v1/batches', isoCreatedAt)),
  // The answer to creation leaves out the tools array, which section 2.10 lists; the stored assistant keeps it.
  'planned-assistant-object-malformed': onRoutes(
    ['POST /v1/assistants'],
    ({ tools: _tools, ...assistant }) => assistant,
  ),
}
