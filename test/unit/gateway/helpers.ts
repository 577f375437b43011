/**
 * Shared helpers of the gateway self-tests: a gateway driven through Fastify's inject (no sockets),
 * and a clock the tests step by hand.
 */
import type { FastifyInstance } from 'fastify'
import { SEEDED_KEYS, type SeededKeys } from '../../../gateway/account/accounts.ts'
import type { Clock } from '../../../gateway/clock.ts'
import { createGateway, type Gateway, type GatewayConfig } from '../../../gateway/server.ts'

export const KEYS = SEEDED_KEYS

export interface CallOptions {
  /** A seeded key slot, a literal key, or null for none. Default: the main key. */
  key?: keyof SeededKeys | { raw: string } | null
  /** Which header carries the key. */
  form?: 'bearer' | 'x-api-key'
  method?: 'GET' | 'POST' | 'DELETE'
  body?: unknown
  headers?: Record<string, string>
}

export interface CallResult {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  // any: tests read arbitrary JSON bodies and let a wrong shape fail the expectation, not the compiler.
  // biome-ignore lint/suspicious/noExplicitAny: some 330 reads in test/gateway rely on it; typing them is separate work
  body: any
  id: string
}

export interface TestGateway extends Gateway {
  call(path: string, options?: CallOptions): Promise<CallResult>
}

export function testGateway(config: GatewayConfig = {}): TestGateway {
  const gateway = createGateway(config)
  return { ...gateway, call: (path, options) => call(gateway.app, path, options) }
}

export async function call(app: FastifyInstance, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers }
  const key =
    options.key === undefined
      ? KEYS.main
      : options.key === null
        ? undefined
        : typeof options.key === 'string'
          ? KEYS[options.key]
          : options.key.raw
  if (key !== undefined) {
    if (options.form === 'x-api-key') headers['x-api-key'] = key
    else headers.authorization = `Bearer ${key}`
  }
  const response = await app.inject({
    method: options.method ?? 'GET',
    url: path,
    headers,
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  })
  const text = response.body
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return {
    status: response.statusCode,
    headers: response.headers,
    body,
    id: String(response.headers['svc-request-id']),
  }
}

/** A clock that only moves when told to. */
export function manualClock(start: string | number): Clock & { advance(ms: number): void; set(iso: string): void } {
  let now = typeof start === 'number' ? start : Date.parse(start)
  return {
    now: () => now,
    advance: (ms) => {
      now += ms
    },
    set: (iso) => {
      now = Date.parse(iso)
    },
  }
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
