/** Per-test recording for every conformance suite (see harness/recorder.ts). */
import { afterEach, beforeEach } from 'vitest'
import { closeRecord, openRecord } from '../harness/recorder.ts'

beforeEach((ctx) => openRecord(ctx))
afterEach((ctx) => closeRecord(ctx))
