/**
 * The response object (Part 1 §2.7): the known fields (id, status, incomplete_details.reason, output,
 * output_text, usage, moderation) and, for the fields the reference does not show, the widely used convention
 * (object, created_at, the request's parameters echoed). Rendered per phase: the finished response, or the
 * snapshot of a response still queued or in progress (stream events, background jobs), or a cancelled one.
 */
import type { Run } from './generation.ts'
import type { CreateRequest } from './validate.ts'

export interface Draft {
  id: string
  /** Unix seconds. */
  createdAt: number
  model: string
  req: CreateRequest
  run: Run
  moderation?: Record<string, unknown> | undefined
}

export type Phase = 'final' | 'queued' | 'in_progress' | 'cancelled'

export function finalStatus(draft: Draft): 'completed' | 'incomplete' {
  return draft.run.incomplete ? 'incomplete' : 'completed'
}

export function renderResponse(draft: Draft, phase: Phase): Record<string, unknown> {
  const { req, run } = draft
  const final = phase === 'final'
  const status = final ? finalStatus(draft) : phase
  return {
    id: draft.id,
    object: 'response',
    created_at: draft.createdAt,
    status,
    background: req.background,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: run.instructions ?? null,
    max_output_tokens: req.maxOutputTokens ?? null,
    metadata: req.metadata,
    model: draft.model,
    output: final ? run.items.map((i) => i.item) : [],
    output_text: final ? run.outputText : '',
    parallel_tool_calls: req.parallelToolCalls,
    previous_response_id: req.previousResponseId ?? null,
    reasoning: { effort: req.reasoningEffort ?? null, summary: null },
    safety_identifier: req.safetyIdentifier ?? null,
    service_tier: req.serviceTier,
    store: req.store,
    temperature: req.temperature ?? 1,
    text: { format: formatView(req), verbosity: req.verbosity ?? 'medium' },
    tool_choice:
      req.toolChoice.kind === 'function' ? { type: 'function', name: req.toolChoice.name } : req.toolChoice.kind,
    tools: req.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict,
    })),
    top_logprobs: req.topLogprobs,
    top_p: req.topP ?? 1,
    truncation: req.truncation,
    usage: final ? usageView(run) : null,
    user: req.user ?? null,
    ...(draft.moderation === undefined ? {} : { moderation: final ? draft.moderation : null }),
  }
}

function formatView(req: CreateRequest): Record<string, unknown> {
  const format = req.format
  if (format.type !== 'json_schema') return { type: format.type }
  return { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict }
}

/** Section 2.5: reasoning_tokens is a breakdown of output_tokens. */
function usageView(run: Run): Record<string, unknown> {
  const { inputTokens, outputTokens, reasoningTokens } = run.usage
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  }
}
