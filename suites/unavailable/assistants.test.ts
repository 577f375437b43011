/**
 * Assistants, threads, messages and runs, planned and unavailable (Part 1 §2.10, §4.9): judged only where the
 * target offers them. No run is started (a run would be billed); what is created is deleted afterwards, by the
 * widely used DELETE routes, which the reference does not name (best effort, not judged).
 */
import { afterAll, describe } from 'vitest'
import { expectSchema, expectStatus } from '../../harness/worker/assert.ts'
import { isObject } from '../../common/json.ts'
import { memo } from '../../harness/worker/helpers.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { runMetadata } from '../../harness/worker/run-tag.ts'
import { check, target, runConfig } from '../../harness/worker/suite.ts'
import { catalogueFixture, modelFor } from '../chat/fixtures.ts'
import { bodyOf, cleanUp, isOffered, longText, metadataOf, requireOffered } from './planned.ts'

const api = target()
const catalogue = catalogueFixture(api)
const created: string[] = []

/** Section 4.9's limits of an assistant. */
const LIMITS = { name: 256, description: 512, instructions: 32_768, tools: 128, metadata: 16 }

async function createAssistant(fields: Record<string, unknown> = {}): Promise<Exchange> {
  const model = await modelFor(catalogue, 'chat')
  const ex = await api.post('/v1/assistants', { model: model.id, metadata: runMetadata(runConfig().runId), ...fields })
  if (isOffered(ex) && isObject(ex.json) && typeof ex.json.id === 'string') created.push(`/v1/assistants/${ex.json.id}`)
  return ex
}

const probe = memo(() => createAssistant({ name: 'gc-conformance' }))

const thread = memo(async () => {
  const ex = await api.post('/v1/threads', { metadata: runMetadata(runConfig().runId) })
  if (isOffered(ex) && isObject(ex.json) && typeof ex.json.id === 'string') created.push(`/v1/threads/${ex.json.id}`)
  return ex
})

function functionTools(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'function',
    function: { name: `gc_tool_${i}`, parameters: { type: 'object', properties: {} } },
  }))
}

afterAll(async () => {
  for (const path of created) await cleanUp(api, 'DELETE', path)
})

describe('assistants and threads, where offered (Part 1 §2.10, §4.9)', () => {
  check('P1-2.10-assistant-object', 'POST /v1/assistants answers the assistant object of §2.10', async () => {
    const ex = await probe()
    requireOffered(ex, 'assistants')
    expectSchema(ex, 'unavailable/assistant.json', bodyOf(ex))
  })

  check(
    'P1-4.9-assistant-limits',
    'name 256, description 512, instructions 32768, 128 tools and 16 metadata pairs accepted; one more refused',
    async () => {
      requireOffered(await probe(), 'assistants')
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        ['name', { name: longText(LIMITS.name) }, { name: longText(LIMITS.name + 1) }],
        [
          'description',
          { description: longText(LIMITS.description) },
          { description: longText(LIMITS.description + 1) },
        ],
        [
          'instructions',
          { instructions: longText(LIMITS.instructions) },
          { instructions: longText(LIMITS.instructions + 1) },
        ],
        ['tools', { tools: functionTools(LIMITS.tools) }, { tools: functionTools(LIMITS.tools + 1) }],
        ['metadata', { metadata: metadataOf(LIMITS.metadata) }, { metadata: metadataOf(LIMITS.metadata + 1) }],
      ]
      for (const [field, atLimit, over] of cases) {
        const ex = await createAssistant(atLimit)
        expectStatus(ex, [200, 201], `${field} at its limit is accepted`)
        expectStatus(await createAssistant(over), 400, `${field} past its limit of §4.9`)
      }
    },
  )

  check(
    'P1-4.9-threads-rules',
    'a user message is accepted; an assistant message, and a run without assistant_id, are refused with 400',
    async () => {
      const threadEx = await thread()
      requireOffered(threadEx, 'threads')
      const id = bodyOf(threadEx).id
      expectStatus(
        await api.post(`/v1/threads/${String(id)}/messages`, { role: 'user', content: 'Hello.' }),
        [200, 201],
        'a user message with content',
      )
      expectStatus(
        await api.post(`/v1/threads/${String(id)}/messages`, { role: 'assistant', content: 'Hello.' }),
        400,
        'role is only user',
      )
      expectStatus(await api.post(`/v1/threads/${String(id)}/runs`, {}), 400, 'assistant_id is required')
    },
  )
})
