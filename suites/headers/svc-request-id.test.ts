/** svc-request-id: present on every response as a UUID v7, one per call, minted at the call (Part 1 §1.4, §4.1). */
import { describe } from 'vitest'
import { expectThat, precondition, expectSuccess } from '../../harness/worker/assert.ts'
import { AUDIT_TOLERANCE, callWindow } from '../../harness/report/audit.ts'
import { check, target } from '../../harness/worker/suite.ts'
import { checkUuidV7, makeUuidV7 } from '../../harness/uuid.ts'
import { SAMPLE_CALLS, UNKNOWN_MODEL } from './calls.ts'

const api = target()

describe('svc-request-id (Part 1 §4.1)', () => {
  for (const call of SAMPLE_CALLS) {
    check('P1-4.1-svc-request-id', `svc-request-id is a UUID v7 on ${call.title}`, async () => {
      const ex = await call.run(api)
      const v7 = checkUuidV7(ex.svcRequestId)
      expectThat(
        v7.ok,
        'an svc-request-id header holding a UUID version 7',
        v7.ok ? '' : `svc-request-id ${v7.reason}`,
        ex,
      )
    })
  }

  check(
    'P1-4.1-svc-request-id-unique',
    'successive calls, failed ones included, receive distinct svc-request-id values',
    async () => {
      const exchanges = []
      for (let i = 0; i < 3; i += 1) {
        exchanges.push(await api.get('/v1/models'), await api.get(`/v1/models/${UNKNOWN_MODEL}`))
      }
      const ids = exchanges.map((ex) => ex.svcRequestId).filter((id): id is string => id !== undefined)
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index)
      expectThat(
        repeated.length === 0,
        `${ids.length} distinct svc-request-id values`,
        `repeated: ${[...new Set(repeated)].join(', ')}`,
        exchanges[exchanges.length - 1],
      )
    },
  )

  check('P1-4.1-svc-request-id-time', 'the time inside svc-request-id is within 5 minutes of the call', async () => {
    const ex = await api.get('/v1/models')
    const v7 = checkUuidV7(ex.svcRequestId)
    precondition(v7.ok, 'P1-4.1-svc-request-id', 'svc-request-id is not a UUID v7, so it holds no time')
    const window = callWindow(ex.excerpt)
    const skew = AUDIT_TOLERANCE.svcIdClockSkewMs
    expectThat(
      v7.timestampMs >= window.from - skew && v7.timestampMs <= window.to + skew,
      `a UUID time within 5 minutes of the call at ${new Date(window.from).toISOString()} (${window.clock})`,
      new Date(v7.timestampMs).toISOString(),
      ex,
    )
  })
})

describe('X-Client-Request-Id (Part 1 §4.1)', () => {
  check(
    'P1-4.1-client-request-id',
    'an X-Client-Request-Id shaped like a UUID v7 is not taken as svc-request-id',
    async () => {
      const clientId = makeUuidV7()
      const ex = await api.get('/v1/models', { clientRequestId: clientId })
      expectSuccess(ex, 'a valid trace id is accepted')
      expectThat(
        ex.svcRequestId !== clientId,
        "an svc-request-id of the service, not the caller's trace id",
        `svc-request-id equals X-Client-Request-Id ${clientId}`,
        ex,
      )
    },
  )

  check('P1-4.1-client-request-id', 'a 512-character ASCII X-Client-Request-Id is accepted', async () => {
    const clientId = `gc-${'0123456789abcdef'.repeat(32)}`.slice(0, 512)
    const ex = await api.get('/v1/models', { clientRequestId: clientId })
    expectSuccess(ex, 'ASCII up to 512 characters is allowed')
    expectThat(
      ex.svcRequestId !== clientId,
      'svc-request-id unaffected by the trace id',
      `svc-request-id equals the trace id`,
      ex,
    )
  })
})
