/**
 * The gateway command (`npm run gateway`, `gateway-conformance gateway`): the reference gateway served until
 * SIGINT or SIGTERM, its URL and every seeded key printed; bad options are one line on stderr and exit code 2.
 * The signal handlers live here, beside the server they close, so that every entry point stops it the same way.
 */
import { SEEDED_KEY_ENV, SEEDED_KEYS, type SeededKeys } from './account/accounts.ts'
import { startEmbeddedGateway } from './embedded.ts'
import { OptionError } from './errors.ts'
import { describeFaults } from './faults/registry.ts'
import { DEFAULT_LIMITER, USAGE } from './flags.ts'
import { DEFAULT_NATIVE_KEY_HEADER, parseCommandLine } from './options.ts'
import { describeVariations, REAL_NAMES } from './variations.ts'

const EXIT_BAD_OPTIONS = 2

/** The seeded keys as the banner prints them: environment variable, tier, value (the bench reads the value). */
function keyTable(): string {
  const slots = Object.keys(SEEDED_KEYS) as (keyof SeededKeys)[]
  return slots
    .map((slot) => `  ${SEEDED_KEY_ENV[slot].padEnd(28)}${tierLabel(slot).padEnd(20)}${SEEDED_KEYS[slot]}`)
    .join('\n')
}

function tierLabel(slot: keyof SeededKeys): string {
  if (slot === 'main') return 'tier 2 (main)'
  if (slot === 'suspended') return 'tier 1, suspended'
  if (slot === 'second') return 'tier 2 (main account)'
  return `tier ${slot.slice(-1)}`
}

/** Serves until a signal; returns at once (with the exit code) for help, the fault list and bad options. */
async function main(argv: string[]): Promise<number | undefined> {
  let command: ReturnType<typeof parseCommandLine>
  try {
    command = parseCommandLine(argv)
  } catch (error) {
    if (!(error instanceof OptionError)) throw error
    process.stderr.write(`gateway: ${error.message}\n`)
    return EXIT_BAD_OPTIONS
  }
  if (command.kind === 'help') {
    process.stdout.write(USAGE)
    return 0
  }
  if (command.kind === 'list-faults') {
    process.stdout.write(`${describeFaults()}\n`)
    return 0
  }
  if (command.kind === 'list-variations') {
    process.stdout.write(`${describeVariations()}\n`)
    return
  }

  const { options } = command
  const gateway = await startEmbeddedGateway({
    port: options.port,
    host: options.host,
    ...(options.startMs === undefined ? {} : { now: new Date(options.startMs).toISOString() }),
    minuteMs: options.minuteMs,
    limiter: options.limiter,
    faults: [...options.faults],
    vary: options.vary,
    ...(options.vary ? { varyLatencyMs: options.varyLatencyMs } : {}),
    ...(options.videoStepMs === undefined ? {} : { videoStepMs: options.videoStepMs }),
    bareModels: options.bareModels,
    variations: [...options.variations],
    nativeKeyHeader: options.nativeKeyHeader,
    routeLimits: options.routeLimits.map((l) => l.text),
  })
  const notes = [
    options.startMs === undefined ? '' : `clock starts at ${new Date(options.startMs).toISOString()}`,
    options.minuteMs === 60_000 ? '' : `a rate-limit minute lasts ${options.minuteMs} ms`,
    options.limiter === DEFAULT_LIMITER ? '' : `every rate-limit bucket is a ${options.limiter}`,
    options.faults.length === 0 ? '' : `faults: ${options.faults.join(', ')}`,
    options.vary ? `allowed variation (--vary) is on, ${options.varyLatencyMs} ms before a route answers` : '',
    options.videoStepMs === undefined
      ? ''
      : `a video job stays queued, then processing, ${options.videoStepMs} ms each`,
    options.variations.size === 0
      ? ''
      : `choices the reference leaves open, as real providers make them: ${[...options.variations].join(', ')}`,
    options.variations.has('real-names')
      ? `neutralised ids under their makers' names: GATEWAY_NAMES=${Object.entries(REAL_NAMES)
          .map(([from, to]) => `${from}=${to}`)
          .join(',')}`
      : '',
    options.bareModels ? 'model endpoints answer bare models (--bare-models): no mode, min_tier, pricing or extra' : '',
    ...options.routeLimits.map((l) => `route limit (not in the catalogue): ${l.text} per account`),
    options.nativeKeyHeader === DEFAULT_NATIVE_KEY_HEADER
      ? ''
      : `the native interface takes its key in ${options.nativeKeyHeader}`,
  ].filter((note) => note !== '')
  process.stdout.write(
    `Reference gateway listening on ${gateway.url}\n${notes.map((note) => `  ${note}\n`).join('')}` +
      `Seeded keys (environment variable, tier, value):\n${keyTable()}\n` +
      `Admin key (routes under /admin, e.g. raising a tier; see gateway/README.md): ${gateway.adminKey}\n` +
      `Stop with Ctrl-C.\n`,
  )

  let stopping = false
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return
    stopping = true
    process.stdout.write(`${signal}: closing\n`)
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`gateway: close failed: ${(error as Error).message}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return undefined
}

/** The gateway command: serves until SIGINT or SIGTERM, which exit the process themselves. */
export async function gatewayCommand(argv: string[]): Promise<number | undefined> {
  try {
    return await main(argv)
  } catch (error) {
    const err = error as NodeJS.ErrnoException
    const reason = err.code === 'EADDRINUSE' ? 'the port is already in use; choose another with --port' : err.message
    process.stderr.write(`gateway: ${reason}\n`)
    return 1
  }
}
