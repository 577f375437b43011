/** Options of the reference gateway (gateway/README.md). */
import { describe, expect, it } from 'vitest'
import { parseCommandLine, resolveOptions } from '../../../gateway/options.ts'
import { OptionError } from '../../../gateway/errors.ts'
import { VARIATION_NAMES } from '../../../gateway/variations.ts'

describe('command line', () => {
  it('defaults to 127.0.0.1:8080, the real clock, 60 s fixed windows, no faults and no variation', () => {
    expect(parseCommandLine([])).toEqual({
      kind: 'serve',
      options: {
        port: 8080,
        host: '127.0.0.1',
        startMs: undefined,
        minuteMs: 60_000,
        limiter: 'fixed-window',
        faults: [],
        vary: false,
        varyLatencyMs: 0,
        bareModels: false,
        variations: new Set(),
        nativeKeyHeader: 'x-native-api-key',
        routeLimits: [],
      },
    })
  })

  it('reads every option, with --fault repeatable', () => {
    const command = parseCommandLine([
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--now',
      '2026-09-01',
      '--minute-ms',
      '200',
      '--limiter',
      'token-bucket',
      '--fault',
      'mode-unknown',
      '--fault',
      'has-more-always-false',
      '--vary',
      '--vary-latency-ms',
      '50',
      '--bare-models',
      '--variation',
      'reset-seconds',
      '--variation',
      'late-credit',
      '--native-key-header',
      'X-Vendor-Key',
      '--route-limit',
      'POST /v1/chat/completions=30/10s',
    ])
    expect(command).toEqual({
      kind: 'serve',
      options: {
        port: 0,
        host: '0.0.0.0',
        startMs: Date.UTC(2026, 8, 1),
        minuteMs: 200,
        limiter: 'token-bucket',
        faults: ['mode-unknown', 'has-more-always-false'],
        vary: true,
        varyLatencyMs: 50,
        bareModels: true,
        variations: new Set(['reset-seconds', 'late-credit']),
        nativeKeyHeader: 'x-vendor-key',
        routeLimits: [
          {
            text: 'POST /v1/chat/completions=30/10s',
            method: 'POST',
            path: '/v1/chat/completions',
            limit: 30,
            periodMs: 10_000,
          },
        ],
      },
    })
  })

  it('--real switches every variation on; an unknown one is refused, naming the known', () => {
    const command = parseCommandLine(['--real'])
    expect(command.kind === 'serve' && [...command.options.variations].sort()).toEqual([...VARIATION_NAMES].sort())
    expect(() => parseCommandLine(['--variation', 'no-such'])).toThrow(/unknown variation no-such; known: real-names/)
  })

  it('--fault list, --variation list and --help are commands of their own', () => {
    expect(parseCommandLine(['--fault', 'list'])).toEqual({ kind: 'list-faults' })
    expect(parseCommandLine(['--variation', 'list'])).toEqual({ kind: 'list-variations' })
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' })
  })

  it.each([
    [['--port', 'abc'], /--port/],
    [['--port', '65536'], /--port must be an integer from 0 to 65535/],
    [['--port'], /--port needs a value/],
    [['--minute-ms', '0'], /--minute-ms must be a positive integer/],
    [['--minute-ms', '1.5'], /--minute-ms/],
    [
      ['--limiter', 'leaky-bucket'],
      /--limiter must be one of fixed-window, sliding-window, token-bucket, clock-window, got 'leaky-bucket'/,
    ],
    [['--vary-latency-ms', '10'], /--vary-latency-ms needs --vary/],
    [['--vary', '--vary-latency-ms', '-1'], /--vary-latency-ms/],
    [['--now', 'yesterday'], /--now must be an ISO date/],
    [['--native-key-header', 'x key'], /--native-key-header must be a header name/],
    [['--native-key-header', 'Authorization'], /--native-key-header must be a header name other than authorization/],
    [['--now', '2026-02-30'], /--now/],
    [['--fault', 'no-such-fault'], /unknown fault 'no-such-fault'; valid faults: no-svc-request-id-on-errors, /],
    [['--colour'], /unknown option --colour; valid options: --port/],
    [['extra'], /unexpected argument 'extra'/],
  ])('%j is refused with a message saying what to fix', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(OptionError)
    expect(() => parseCommandLine(argv)).toThrow(message)
  })
})

describe('--now', () => {
  it.each([
    ['2026-09-01', '2026-09-01T00:00:00.000Z'],
    ['2026-09-01T12:30:00Z', '2026-09-01T12:30:00.000Z'],
    ['2026-09-01T12:30:00.250+02:00', '2026-09-01T10:30:00.250Z'],
    ['2026-09-01T12:30', '2026-09-01T12:30:00.000Z'],
  ])('%s starts the clock at %s (UTC unless a zone is given)', (now, iso) => {
    expect(new Date(resolveOptions({ now }, { port: 0 }).startMs!).toISOString()).toBe(iso)
  })
})

describe('programmatic options', () => {
  it('refuse an unknown fault naming the valid ones', () => {
    expect(() => resolveOptions({ faults: ['nope'] }, { port: 0 })).toThrow(/valid faults: .*date-range-ignored/)
  })
})
