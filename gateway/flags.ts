/**
 * The gateway command's flags, their defaults and its help text. Apart from options.ts, which checks the values, so
 * that `gateway --help` loads neither the fault registry nor the server.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_NATIVE_KEY_HEADER } from '../common/native-key.ts'
import { LIMITER_ALGORITHMS, type LimiterAlgorithm } from './limiter.ts'
import { VARY_DEFAULTS } from './vary.ts'
import { DEFAULT_VIDEO_STEP_MS } from './videos/store.ts'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_MINUTE_MS = 60_000
export const DEFAULT_LIMITER: LimiterAlgorithm = 'fixed-window'
export const CLI_DEFAULT_PORT = 8080

export const USAGE = `Usage: gateway-conformance gateway [options]   (npm run gateway -- ...)
  --port <n>          port to listen on (default ${CLI_DEFAULT_PORT}; 0 picks a free one)
  --host <addr>       address to bind (default ${DEFAULT_HOST})
  --now <iso>         start the clock at this date or date-time; it then advances in real time
  --minute-ms <n>     length of a rate-limit minute in milliseconds (default ${DEFAULT_MINUTE_MS})
  --limiter <name>    the algorithm of every rate-limit bucket: ${LIMITER_ALGORITHMS.join(', ')}
                      (default ${DEFAULT_LIMITER}); see gateway/README.md for what its headers then mean
  --video-step-ms <n> how long a video job stays queued, then processing, in milliseconds (default ${DEFAULT_VIDEO_STEP_MS})
  --vary              allowed variation of §9.2: unknown properties, reordered keys, ids in another format,
                      unfamiliar stream events, CRLF, split writes, an unrelated x-request-id past 2026-10-15,
                      no Retry-After on 429, and ${VARY_DEFAULTS.latencyMs} ms before a route answers
  --vary-latency-ms <n> that latency in milliseconds (default ${VARY_DEFAULTS.latencyMs}; 0 for none)
  --bare-models       model endpoints answer only id, object, created and owned_by, as many compatible servers do
  --real              every choice the reference leaves open, made as real providers make it (gateway/variations.ts)
  --variation <name>  one such choice; repeatable; --variation list prints them
  --route-limit <spec> a limit on one route per account that the catalogue does not announce, as an operator
                      configures one: 'METHOD /path=N/PERIOD', e.g. 'POST /v1/chat/completions=30/10s' (real
                      time, not --minute-ms); its bucket is the one x-ratelimit-*-requests report on that route;
                      repeatable
  --native-key-header <name> the native interface's key header (default ${DEFAULT_NATIVE_KEY_HEADER}), e.g. a vendor's own
  --fault <name>      switch on a named fault; repeatable; --fault list prints the registry
  -h, --help          print this text
`

export const CLI_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  now: { type: 'string' },
  'minute-ms': { type: 'string' },
  limiter: { type: 'string' },
  'video-step-ms': { type: 'string' },
  fault: { type: 'string', multiple: true },
  vary: { type: 'boolean' },
  'vary-latency-ms': { type: 'string' },
  'bare-models': { type: 'boolean' },
  real: { type: 'boolean' },
  variation: { type: 'string', multiple: true },
  'native-key-header': { type: 'string' },
  'route-limit': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const

/** node:util's parse; options.ts rewords its errors into the command's one line. */
export function parseCli(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: CLI_OPTIONS, strict: true, allowPositionals: false })
}
