/** Chat completion rules (Part 1 §1.5, §2.2, §4.7, §6.4, §7), read by the route, the answer and the stream writer. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { ChatFault } from './faults.ts'

export type ChatRules = Readonly<ReturnType<typeof chatRules>>

export function chatRules(faults: FaultSet) {
  const bent = bentBy<ChatFault>(faults)
  return {
    // Section 7: a body that is not JSON is 400; the fault answers 500, as if the parse error escaped.
    malformedJsonAs400: !bent('chat-malformed-json-500'),
    // Section 7: an unknown model is 404; the fault serves the first chat model.
    refuseUnknownModel: !bent('chat-unknown-model-served'),
    // Section 1.5: a model above the caller's tier is 403; the fault serves it.
    checkMinTier: !bent('chat-min-tier-ignored'),
    // Section 7: an empty messages array is an invalid request; the fault serves it.
    requireMessages: !bent('chat-empty-messages-accepted'),
    // Section 4.7: system and developer are the instruction roles; the fault refuses developer.
    takesDeveloperRole: !bent('chat-developer-role-refused'),
    // Section 4.7: tools are taken; the fault refuses a non-empty tools array.
    takesTools: !bent('chat-tools-refused'),
    // Section 4.7: an audio model takes input_audio content; the fault refuses it as a text model does.
    takesAudio: !bent('chat-audio-refused'),
    // Section 4.7: an audio model answers in audio (modalities, message.audio); the fault refuses it.
    answersAudio: !bent('chat-audio-output-refused'),
    // Section 4.7: the inline moderation object is taken; the fault refuses it.
    takesModeration: !bent('chat-moderation-refused'),
    // tool_choice required or a named function calls a tool; the fault always answers in text.
    honourToolChoice: !bent('chat-tool-choice-ignored'),
    // The instructions count as prompt tokens; the fault leaves the first system or developer message out.
    countInstructions: !bent('chat-system-not-counted'),
    // max_completion_tokens caps completion_tokens; the fault reports one token over the budget when it runs out.
    completionWithinBudget: !bent('chat-completion-over-budget'),
    // Section 6.4: a stream is written whole; the fault ends it inside the second event.
    streamWhole: !bent('chat-stream-cut'),
    // Section 2.2: a streamed call is recorded with stream true; the fault records false.
    recordStreamFlag: !bent('chat-transaction-stream-false'),
    // Section 2.2: the transaction records the usage's tokens; the fault records one prompt token more.
    recordUsageTokens: !bent('chat-transaction-tokens-off'),
  }
}
