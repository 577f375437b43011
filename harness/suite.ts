/**
 * What a suite file uses: `check()` declares a test of one requirement, `gateway()` is the client bound to the
 * run's target. The requirement id is in the test's name (so `--grep P1-4.1` selects by id) and in its meta
 * (so the reporter needs no parsing). An unknown id fails when the file is collected.
 */
import { inject, test } from 'vitest'
import { ConformanceFailure, lastExchange } from './assert.ts'
import { reserveSpend } from './budget.ts'
import { requirement } from './catalogue.ts'
import type { TargetConfig } from './config.ts'
import { GatewayClient, TargetFailure } from './http-client.ts'

declare module 'vitest' {
  interface ProvidedContext {
    runConfig: TargetConfig
  }
}

export const SUITE_DEFAULTS = {
  testTimeoutMs: 120_000, // above the client's own deadlines and one rate-limit wait, so those fire first
}

let client: GatewayClient | undefined

export function gateway(): GatewayClient {
  client ??= new GatewayClient(inject('runConfig'))
  return client
}

export function runConfig(): TargetConfig {
  return inject('runConfig')
}

/**
 * Call before a billable request with its estimated cost in US dollars (from the reference's prices,
 * rounded up): reserves it against GATEWAY_BUDGET_USD, or skips the test with the budget as reason.
 */
export function spend(usd: number, what: string): void {
  reserveSpend(inject('runConfig'), usd, what)
}

/** Turns what a test threw into what the report should say: a transport problem is the target's failure. */
function classify(error: unknown): unknown {
  if (error instanceof TargetFailure) return new ConformanceFailure({ expected: 'a complete HTTP response', seen: error.message, exchange: error.record })
  if (error instanceof Error && error.name === 'AssertionError') {
    // A plain vitest expect(): keep its message, add the requirement and the evidence.
    const exchange = lastExchange()
    return new ConformanceFailure({ expected: 'the assertion to hold', seen: error.message, ...(exchange ? { exchange } : {}) })
  }
  return error
}

export function check(id: string, title: string, fn: () => Promise<void> | void, options: { timeout?: number } = {}): void {
  requirement(id)
  test(`[${id}] ${title}`, { meta: { requirement: id }, timeout: options.timeout ?? SUITE_DEFAULTS.testTimeoutMs }, async () => {
    try {
      await fn()
    } catch (error) {
      throw classify(error)
    }
  })
}
