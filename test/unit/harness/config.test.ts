/** Configuration: every bad setting is one ConfigError line that says what to fix (docs/configuration.md). */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEFAULTS, loadEnv, resolveOptions, type Env, type FlagValues } from '../../../harness/setup/config.ts'
import { RUN_STOP_DEFAULTS } from '../../../harness/setup/run-stop.ts'
import { configErrorOf } from '../../support/config-error.ts'

const FAMILIES = ['account', 'auth', 'headers', 'models']

function resolve(env: Env, flags: FlagValues = {}) {
  return resolveOptions(env, flags, [], FAMILIES)
}

const errorOf = (env: Env, flags: FlagValues = {}): string => configErrorOf(() => resolve(env, flags))

describe('resolveOptions', () => {
  test('no base URL means the embedded gateway, unlimited budget, today as the as-of date', () => {
    const options = resolve({})
    expect(options).toMatchObject({
      baseUrl: null,
      budgetUsd: null,
      timeoutMs: DEFAULTS.timeoutMs,
      families: null,
      asOfExplicit: false,
    })
    expect(options.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  test('a remote target takes its keys from the environment and gets a small default budget', () => {
    const options = resolve({
      GATEWAY_BASE_URL: 'https://gw.example.com/',
      GATEWAY_API_KEY: 'k1',
      GATEWAY_API_KEY_TIER3: 'k3',
      GATEWAY_SUSPENDED_API_KEY: 'ks',
    })
    expect(options.baseUrl).toBe('https://gw.example.com')
    expect(options.keys).toEqual({ main: 'k1', tier3: 'k3', suspended: 'ks' })
    expect(options.budgetUsd).toBe(DEFAULTS.remoteBudgetUsd)
  })

  test('flags override the environment', () => {
    const options = resolve(
      { GATEWAY_BASE_URL: 'http://a.example', GATEWAY_API_KEY: 'k', GATEWAY_AS_OF: '2026-01-01' },
      { 'base-url': 'http://127.0.0.1:8080', 'as-of': '2026-09-01', family: 'models,auth,models' },
    )
    expect(options).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080',
      asOf: '2026-09-01',
      asOfExplicit: true,
      families: ['models', 'auth'],
    })
  })

  test.each([
    [{ GATEWAY_BASE_URL: 'not a url' }, /GATEWAY_BASE_URL "not a url" is not a URL/],
    [{ GATEWAY_BASE_URL: 'ftp://gw.example.com', GATEWAY_API_KEY: 'k' }, /must start with http/],
    [{ GATEWAY_BASE_URL: 'https://gw.example.com/v1', GATEWAY_API_KEY: 'k' }, /host root with no path.*drop "\/v1"/],
    [{ GATEWAY_BASE_URL: 'https://user:pw@gw.example.com', GATEWAY_API_KEY: 'k' }, /must not hold credentials/],
    [{ GATEWAY_BASE_URL: 'https://gw.example.com' }, /GATEWAY_API_KEY is not set/],
    [{ GATEWAY_AS_OF: '2026-02-30' }, /GATEWAY_AS_OF must be a date written YYYY-MM-DD/],
    [{ GATEWAY_AS_OF: '21.11.2026' }, /GATEWAY_AS_OF must be a date/],
    [{ GATEWAY_TIMEOUT_MS: '0' }, /GATEWAY_TIMEOUT_MS must be a whole number/],
    [{ GATEWAY_TIMEOUT_MS: '5s' }, /GATEWAY_TIMEOUT_MS must be a whole number/],
    [{ GATEWAY_BUDGET_USD: '-1' }, /GATEWAY_BUDGET_USD must be a non-negative number/],
    [{ GATEWAY_API_KEY: 'abc def' }, /GATEWAY_API_KEY contains whitespace/],
    [{ GATEWAY_API_KEY_TIER2: 'abc\ndef' }, /GATEWAY_API_KEY_TIER2 contains whitespace/],
    [{ GATEWAY_LARGE_UPLOADS: 'maybe' }, /GATEWAY_LARGE_UPLOADS must be 1 or 0/],
    [{ GATEWAY_AUDIO_MODELS: 'speech' }, /GATEWAY_AUDIO_MODELS: "speech" is not capability=model-id/],
    [{ GATEWAY_AUDIO_MODELS: 'singer=x' }, /with a capability from speech, transcribe/],
    [
      { GATEWAY_AUDIO_MODELS: 'chat=x' },
      /GATEWAY_AUDIO_MODELS: "chat=x" is not capability=model-id with a capability from speech, transcribe, transcribe-newer, diarize$/,
    ],
    [{ GATEWAY_MODELS: 'chat' }, /GATEWAY_MODELS: "chat" is not capability=model-id/],
    [{ GATEWAY_MODELS: 'chat=a=b' }, /GATEWAY_MODELS: "chat=a=b" is not capability=model-id/],
    [
      { GATEWAY_MODELS: 'chatbot=a' },
      /with a capability from chat, responses, reasoning, embedding, image, completion, moderation, speech/,
    ],
    [{ GATEWAY_MODELS: 'chat=my\tmodel' }, /GATEWAY_MODELS: the model id "my\tmodel" holds whitespace/],
    [{ GATEWAY_NATIVE_KEY_HEADER: 'x key' }, /GATEWAY_NATIVE_KEY_HEADER must be an HTTP header name/],
    [
      { GATEWAY_NATIVE_KEY_HEADER: 'Authorization' },
      /GATEWAY_NATIVE_KEY_HEADER must name the native key header, not Authorization/,
    ],
    [
      { GATEWAY_MINUTE_MS: '10000' },
      /GATEWAY_MINUTE_MS is for a target started with a shortened minute; the embedded gateway's is 10000 ms/,
    ],
    [
      { GATEWAY_BASE_URL: 'http://127.0.0.1:8080', GATEWAY_API_KEY: 'k', GATEWAY_MINUTE_MS: '10s' },
      /GATEWAY_MINUTE_MS must be whole milliseconds from 200 to 60000/,
    ],
    [
      { GATEWAY_BASE_URL: 'http://127.0.0.1:8080', GATEWAY_API_KEY: 'k', GATEWAY_MINUTE_MS: '120000' },
      /GATEWAY_MINUTE_MS must be whole milliseconds/,
    ],
    [{ GATEWAY_MAX_DURATION: '30' }, /GATEWAY_MAX_DURATION must be a duration from 1s to 24h such as 30m/],
    [{ GATEWAY_MAX_DURATION: '25h' }, /GATEWAY_MAX_DURATION must be a duration from 1s to 24h/],
    [{ GATEWAY_MAX_DURATION: '0s' }, /GATEWAY_MAX_DURATION must be a duration/],
  ])('%j is refused: %s', (env, pattern) => {
    expect(errorOf(env)).toMatch(pattern)
  })

  test('an unknown family names the known ones', () => {
    expect(errorOf({}, { family: 'models,nope' })).toBe(
      'unknown family "nope": choose from account, auth, headers, models',
    )
  })

  test('the run deadline: a default, the variable, and the flag over it', () => {
    expect(resolve({}).maxDurationMs).toBe(RUN_STOP_DEFAULTS.maxDurationMs)
    expect(resolve({ GATEWAY_MAX_DURATION: '1h30m' }).maxDurationMs).toBe(90 * 60_000)
    expect(resolve({ GATEWAY_MAX_DURATION: '1h' }, { 'max-duration': '90s' }).maxDurationMs).toBe(90_000)
    expect(errorOf({}, { 'max-duration': 'soon' })).toMatch(/^--max-duration must be a duration/)
  })

  test('a bad flag value names the flag, not the variable', () => {
    expect(errorOf({}, { 'as-of': 'tomorrow' })).toMatch(/^--as-of must be a date/)
    expect(errorOf({}, { 'base-url': 'http://x/y' })).toMatch(/^--base-url must be the host root/)
  })

  test('large uploads and audio model ids are read', () => {
    expect(
      resolve({ GATEWAY_LARGE_UPLOADS: '1', GATEWAY_AUDIO_MODELS: 'speech=my-tts, diarize=my-stt-d' }),
    ).toMatchObject({ largeUploads: true, models: { speech: 'my-tts', diarize: 'my-stt-d' } })
    expect(resolve({}).largeUploads).toBe(false)
  })

  test("a target's shortened rate-limit minute is read; unset, a real minute applies", () => {
    expect(
      resolve({ GATEWAY_BASE_URL: 'http://127.0.0.1:8080', GATEWAY_API_KEY: 'k', GATEWAY_MINUTE_MS: '10000' }).minuteMs,
    ).toBe(10_000)
    expect(resolve({ GATEWAY_BASE_URL: 'http://127.0.0.1:8080', GATEWAY_API_KEY: 'k' }).minuteMs).toBeNull()
  })

  test('models by capability: GATEWAY_MODELS absorbs GATEWAY_AUDIO_MODELS and wins over it; --models stands for GATEWAY_MODELS', () => {
    expect(resolve({}).models).toEqual({})
    const env = {
      GATEWAY_AUDIO_MODELS: 'speech=old-tts,diarize=my-stt-d',
      GATEWAY_MODELS: 'chat=vendor/chat-1, responses=chat-2,speech=new-tts,native-speech=nv-tts',
    }
    expect(resolve(env).models).toEqual({
      chat: 'vendor/chat-1',
      responses: 'chat-2',
      speech: 'new-tts',
      diarize: 'my-stt-d',
      'native-speech': 'nv-tts',
    })
    expect(resolve(env, { models: 'chat=flag-chat' }).models).toEqual({
      chat: 'flag-chat',
      speech: 'old-tts',
      diarize: 'my-stt-d',
    })
    expect(errorOf({}, { models: 'nope=x' })).toMatch(/^--models: "nope=x" is not capability=model-id/)
  })

  test('the native key header: x-native-api-key unless named, lower case', () => {
    expect(resolve({}).nativeKeyHeader).toBe('x-native-api-key')
    expect(resolve({ GATEWAY_NATIVE_KEY_HEADER: 'X-Vendor-Api-Key' }).nativeKeyHeader).toBe('x-vendor-api-key')
  })

  test('blank variables count as unset', () => {
    expect(resolve({ GATEWAY_BASE_URL: '  ', GATEWAY_AS_OF: '' }).baseUrl).toBeNull()
  })
})

describe('loadEnv', () => {
  test('reads .env, and the environment wins over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-env-'))
    writeFileSync(join(dir, '.env'), 'GATEWAY_BASE_URL=http://127.0.0.1:8080\nGATEWAY_API_KEY=from-file\n')
    expect(loadEnv({ GATEWAY_API_KEY: 'from-env' }, dir)).toMatchObject({
      GATEWAY_BASE_URL: 'http://127.0.0.1:8080',
      GATEWAY_API_KEY: 'from-env',
    })
  })

  test('no .env is fine', () => {
    expect(loadEnv({ A: '1' }, mkdtempSync(join(tmpdir(), 'gc-env-')))).toEqual({ A: '1' })
  })
})
