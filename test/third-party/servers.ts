/**
 * OpenAI-compatible servers from npm that no one here wrote, started in this process on 127.0.0.1 with a port
 * the system picks. Each is used as a new user would: its own default answers (mock-llm) or the smallest
 * configuration its README shows (openai-mock-api: a key and one catch-all answer). Nothing reaches outside.
 */
import { createRequire } from 'node:module'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getDefaultConfig } from '@dwmkerr/mock-llm/dist/config.js'
import { createServer as createMockLlm } from '@dwmkerr/mock-llm/dist/server.js'
import { MockServer } from 'openai-mock-api'
import type { ILogger } from 'openai-mock-api/dist/interfaces.js'

export interface ThirdPartyServer {
  /** npm package name. */
  name: string
  version: string
  /** The key the server takes (any, where it checks none). */
  key: string
  /** GATEWAY_MODELS for it: the chat model its list names, for every capability it has a route for. */
  models: string
  start(): Promise<{ url: string; close(): Promise<void> }>
}

const require = createRequire(import.meta.url)

function versionOf(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version
}

interface Listening {
  listen(port: number, host: string, callback: () => void): Server
}

async function listen(app: Listening): Promise<{ url: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const quiet: ILogger = { info: () => {}, debug: () => {}, warn: () => {}, error: () => {} }

export const SERVERS: ThirdPartyServer[] = [
  {
    name: '@dwmkerr/mock-llm',
    version: versionOf('@dwmkerr/mock-llm'),
    key: 'sk-third-party-any',
    models: 'chat=gpt-5.2,responses=gpt-5.2,moderation=gpt-5.2',
    start: () => listen(createMockLlm(getDefaultConfig(), '127.0.0.1', 0)),
  },
  {
    name: 'openai-mock-api',
    version: versionOf('openai-mock-api'),
    key: 'sk-third-party-mock',
    models: 'chat=gpt-4,responses=gpt-4,moderation=gpt-4',
    start: () => {
      const config = {
        apiKey: 'sk-third-party-mock',
        responses: [
          {
            id: 'any',
            messages: [
              { role: 'user' as const, matcher: 'any' as const },
              { role: 'assistant' as const, content: 'Hello from the mock.' },
            ],
          },
        ],
      }
      // Its start() binds every interface; its Express app listens on loopback instead.
      const app = (new MockServer(config, quiet) as unknown as { app: Listening }).app
      return listen(app)
    },
  },
]
