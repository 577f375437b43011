/**
 * `npm run gateway -- [options]`: runs the reference gateway until SIGINT or SIGTERM.
 * Prints the base URL and every seeded key; bad options are one line on stderr and exit code 2.
 */
import { SEEDED_KEY_ENV, SEEDED_KEYS, type SeededKeys } from '../gateway/account/accounts.ts'
import { startEmbeddedGateway } from '../gateway/embedded.ts'
import { describeFaults } from '../gateway/faults.ts'
import { DEFAULT_LIMITER, DEFAULT_NATIVE_KEY_HEADER, parseCommandLine, USAGE } from '../gateway/options.ts'
import { OptionError } from '../gateway/errors.ts'

const EXIT_BAD_OPTIONS = 2

function keyTable(): string {
  const slots = Object.keys(SEEDED_KEYS) as (keyof SeededKeys)[]
  return slots
    .map((slot) => `  ${SEEDED_KEY_ENV[slot].padEnd(28)}${tierLabel(slot).padEnd(20)}${SEEDED_KEYS[slot]}`)
    .join('\n')
}

function tierLabel(slot: keyof SeededKeys): string {
  if (slot === 'main') return 'tier 2 (main)'
  if (slot === 'suspended') return 'tier 1, suspended'
  return `tier ${slot.slice(-1)}`
}

async function main(): Promise<void> {
  let command: ReturnType<typeof parseCommandLine>
  try {
    command = parseCommandLine(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof OptionError)) throw error
    process.stderr.write(`gateway: ${error.message}\n`)
    process.exit(EXIT_BAD_OPTIONS)
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (command.kind === 'list-faults') {
    process.stdout.write(`${describeFaults()}\n`)
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
}

main().catch((error: unknown) => {
  const err = error as NodeJS.ErrnoException
  const reason = err.code === 'EADDRINUSE' ? 'the port is already in use; choose another with --port' : err.message
  process.stderr.write(`gateway: ${reason}\n`)
  process.exit(1)
})
