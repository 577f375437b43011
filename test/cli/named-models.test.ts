/**
 * Models by capability (GATEWAY_MODELS) against a gateway whose model list lacks the reference's fields: the
 * reference gateway with --bare-models answers only id, object, created and owned_by, as many compatible servers
 * do. Unnamed, the families that need a model skip, each saying which key to set; named, they are judged, while the
 * models family rightly fails the list. The native interface takes its key in a header of another name
 * (--native-key-header), and GATEWAY_NATIVE_KEY_HEADER names it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SEEDED_KEY_ENV } from '../../gateway/account/accounts.ts'
import { startEmbeddedGateway, type EmbeddedGateway } from '../../gateway/embedded.ts'
import type { Summary } from '../../harness/report/summary.ts'
import { keyEnv, withRun } from '../support/run-conformance.ts'

const NATIVE_HEADER = 'x-vendor-api-key'
const MODELS =
  'embedding=gw-embed-1,image=gw-image-1,completion=gw-complete-1,chat=gw-chat-mini,responses=gw-chat-mini,reasoning=gw-reasoner,moderation=omni-moderation-latest,native=nv-gen-flash,native-speech=nv-speech-flash-preview,chat-audio=gw-chat'
const JUDGED = ['responses', 'chat', 'compatible', 'moderation', 'native']

let gateway: EmbeddedGateway

beforeAll(async () => {
  gateway = await startEmbeddedGateway({ bareModels: true, nativeKeyHeader: NATIVE_HEADER, minuteMs: 10_000 })
})
afterAll(async () => {
  await gateway?.close()
})

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GATEWAY_BASE_URL: gateway.url,
    ...keyEnv({ ...gateway.keys }, SEEDED_KEY_ENV),
    GATEWAY_BUDGET_USD: '100000',
    ...extra,
  }
}

function byFamily(summary: Summary | undefined, family: string): Summary['requirements'] {
  return (summary?.requirements ?? []).filter((r) => r.family === family)
}

describe("a model list without the reference's fields", () => {
  test('unnamed: the tests that need a model skip, saying which GATEWAY_MODELS key to set', async () => {
    await withRun(['--family', 'chat,responses'], env(), (run) => {
      expect(run.exitCode, run.stderr).toBe(3)
      const skipped = [...byFamily(run.summary, 'chat'), ...byFamily(run.summary, 'responses')].filter(
        (r) => r.status === 'skip',
      )
      expect(skipped.length).toBeGreaterThan(50)
      const reasons = new Set(skipped.map((r) => r.reason ?? ''))
      expect(
        [...reasons].filter(
          (reason) =>
            !/GATEWAY_MODELS \(or --models\) with (chat|chat-audio|responses|reasoning|moderation)=<model id>/.test(
              reason,
            ),
        ),
      ).toEqual(['no usable chat model states max_input_tokens (§2.3), so no input can be known to be over its window'])
    })
  }, 300_000)

  test('named: responses, chat, compatible, moderation and native are judged (the native key in the named header); models fails the list', async () => {
    await withRun(
      ['--family', ['models', ...JUDGED].join(',')],
      env({ GATEWAY_MODELS: MODELS, GATEWAY_NATIVE_KEY_HEADER: NATIVE_HEADER }),
      (run) => {
        expect(run.exitCode, run.stderr).toBe(1)
        expect(byFamily(run.summary, 'models').some((r) => r.status === 'fail')).toBe(true)
        for (const family of JUDGED) {
          const requirements = byFamily(run.summary, family)
          expect(
            requirements.filter((r) => r.status === 'fail' || r.status === 'error').map((r) => r.id),
            family,
          ).toEqual([])
          // What no name can give: the fields of a model object that the bare list lacks, or a guard model it does not list.
          const skipped = requirements.filter((r) => r.status === 'skip')
          expect(
            skipped
              .map((r) => `${r.id}: ${r.reason ?? ''}`)
              .filter((line) => /GATEWAY_MODELS|capability absent|no chat model/.test(line)),
            family,
          ).toEqual([])
          // Observations (disabled: untestable) and rules the run did not meet are no want of a name.
          const judged = requirements.filter((r) => r.status !== 'disabled' && r.status !== 'not-observed')
          expect(requirements.filter((r) => r.status === 'pass').length, family).toBeGreaterThanOrEqual(
            judged.length - 3,
          )
        }
        expect(run.summary?.requirements.find((r) => r.id === 'P2-5.2-native-key-header')?.status).toBe('pass')
      },
    )
  }, 420_000) // a child run: seconds alone, minutes beside the fault proof
})
