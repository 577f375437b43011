/**
 * Assistants, threads, messages and runs as planned (Part 1 sections 2.10, 4.9), served only under a
 * `planned-assistant-*` or `planned-threads-*` fault. Only the assistant object has a planned shape; threads,
 * messages and runs answer the widely used convention's objects, kept minimal.
 */
import { findModel } from '../models/catalogue.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { notFound, optionalString, plannedId, readMetadata, requestBody, requiredString } from './planned.ts'
import { isObject } from '../../common/json.ts'
import type { UnavailableRules } from './rules.ts'

/** Section 4.9: the assistant's text and tool limits. */
export const ASSISTANT_LIMITS = { name: 256, description: 512, instructions: 32_768, tools: 128 } as const

interface Owned {
  accountId: string
}

export class PlannedAssistants {
  readonly #assistants = new Map<string, Record<string, unknown> & Owned>()
  readonly #threads = new Map<string, Record<string, unknown> & Owned>()

  private readonly rules: UnavailableRules
  private readonly nowSeconds: () => number

  constructor(rules: UnavailableRules, nowSeconds: () => number) {
    this.rules = rules
    this.nowSeconds = nowSeconds
  }

  createAssistant(accountId: string, raw: unknown): Record<string, unknown> {
    const body = requestBody(raw)
    const check = this.rules.checkAssistantLimits
    const model = requiredString(body, 'model')
    if (!findModel(model))
      throw new GatewayError(404, `The model '${model}' does not exist.`, { code: 'model_not_found', param: 'model' })
    const assistant = {
      id: plannedId('asst_'),
      object: 'assistant',
      created_at: this.nowSeconds(),
      name: optionalString(body, 'name', check ? ASSISTANT_LIMITS.name : undefined),
      description: optionalString(body, 'description', check ? ASSISTANT_LIMITS.description : undefined),
      model,
      instructions: optionalString(body, 'instructions', check ? ASSISTANT_LIMITS.instructions : undefined),
      tools: readTools(body.tools, check),
      file_ids: [],
      tool_resources: isObject(body.tool_resources) ? body.tool_resources : {},
      metadata: readMetadata(body.metadata),
    }
    this.#assistants.set(assistant.id, { ...assistant, accountId })
    return assistant
  }

  createThread(accountId: string, raw: unknown): Record<string, unknown> {
    const body = requestBody(raw)
    const messages = body.messages === undefined ? [] : body.messages
    if (!Array.isArray(messages)) throw invalidParameter('messages', 'messages must be an array.')
    messages.forEach((message, i) => {
      this.#readMessage(message, `messages[${i}]`)
    })
    const thread = {
      id: plannedId('thread_'),
      object: 'thread',
      created_at: this.nowSeconds(),
      metadata: readMetadata(body.metadata),
    }
    this.#threads.set(thread.id, { ...thread, accountId })
    return thread
  }

  addMessage(accountId: string, threadId: string, raw: unknown): Record<string, unknown> {
    this.#thread(accountId, threadId)
    const body = requestBody(raw)
    const { role, text } = this.#readMessage(body, 'message')
    const fileIds = body.file_ids === undefined ? [] : body.file_ids
    if (!Array.isArray(fileIds) || !fileIds.every((id) => typeof id === 'string'))
      throw invalidParameter('file_ids', 'file_ids must be an array of file ids.')
    return {
      id: plannedId('msg_'),
      object: 'thread.message',
      created_at: this.nowSeconds(),
      thread_id: threadId,
      role,
      content: [{ type: 'text', text: { value: text, annotations: [] } }],
      file_ids: fileIds,
      metadata: readMetadata(body.metadata),
    }
  }

  createRun(accountId: string, threadId: string, raw: unknown): Record<string, unknown> {
    this.#thread(accountId, threadId)
    const body = requestBody(raw)
    const assistantId = requiredString(body, 'assistant_id')
    const assistant = this.#assistants.get(assistantId)
    if (!assistant || assistant.accountId !== accountId) throw notFound('assistant', assistantId)
    return {
      id: plannedId('run_'),
      object: 'thread.run',
      created_at: this.nowSeconds(),
      thread_id: threadId,
      assistant_id: assistantId,
      status: 'queued',
      model: assistant.model,
      instructions: optionalString(body, 'instructions', ASSISTANT_LIMITS.instructions) ?? assistant.instructions,
      tools: body.tools === undefined ? assistant.tools : readTools(body.tools, true),
      metadata: readMetadata(body.metadata),
    }
  }

  /** Section 4.9: a thread message has role (only user) and content, both required. */
  #readMessage(message: unknown, where: string): { role: string; text: string } {
    if (!isObject(message)) throw invalidParameter(where, `${where} must be an object with role and content.`)
    const role = message.role
    const roleOk = this.rules.threadMessagesUserOnly ? role === 'user' : typeof role === 'string'
    if (!roleOk) throw invalidParameter(`${where}.role`, 'role is required and must be user.')
    const content = message.content
    if (typeof content === 'string' && content !== '') return { role: role as string, text: content }
    if (Array.isArray(content) && content.length > 0) return { role: role as string, text: JSON.stringify(content) }
    throw invalidParameter(`${where}.content`, 'content is required.')
  }

  #thread(accountId: string, id: string): Record<string, unknown> {
    const thread = this.#threads.get(id)
    if (!thread || thread.accountId !== accountId) throw notFound('thread', id)
    return thread
  }
}

/** At most 128 tools, each with a type, and a function object for function tools. */
function readTools(value: unknown, check: boolean): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidParameter('tools', 'tools must be an array.')
  if (check && value.length > ASSISTANT_LIMITS.tools)
    throw invalidParameter('tools', `tools holds at most ${ASSISTANT_LIMITS.tools} tools; got ${value.length}.`)
  value.forEach((tool, i) => {
    if (!isObject(tool) || typeof tool.type !== 'string')
      throw invalidParameter(`tools[${i}]`, `tools[${i}] must have a type.`)
    if (tool.type === 'function' && (!isObject(tool.function) || typeof tool.function.name !== 'string')) {
      throw invalidParameter(`tools[${i}].function`, 'a function tool needs a function object with a name.')
    }
  })
  return value
}
