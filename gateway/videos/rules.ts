/** Videos rules (Part 2 §3, §4.1, §7, §8), read by the routes and the create checks. */
import { bentBy, type FaultSet } from '../faults/definition.ts'
import type { VideosFault } from './faults.ts'
import limits from '../../schemas/limits/video-limits.json' with { type: 'json' }
import { limitOf } from '../../common/request-schemas.ts'

/** Section 8's character limits of a create, as its request schema states them. */
export const STATED = {
  promptMaxChars: limitOf('POST /v1/videos', 'body', 'prompt', 'maxLength'),
  safetyIdentifierMaxChars: limitOf('POST /v1/videos', 'body', 'safety_identifier', 'maxLength'),
}

/** Seconds and sizes of one video model (section 4.1); null where the reference lists none. */
export interface ModelRule {
  readonly family: string
  readonly seconds: readonly string[] | null
  readonly sizes: readonly string[] | null
}

/** The eight video models of section 4.1, as the limit table lists them. */
export const MODEL_RULES: Readonly<Record<string, ModelRule>> = limits.models

export type ReferenceType = 'image/jpeg' | 'image/png' | 'image/webp'
const REFERENCE_TYPES: readonly ReferenceType[] = ['image/jpeg', 'image/png', 'image/webp']

export type VideoRules = Readonly<ReturnType<typeof videoRules>>

export function videoRules(faults: FaultSet) {
  const bent = bentBy<VideosFault>(faults)
  return {
    // Section 4.1: the video routes are served; the fault serves none of them (every one a 404).
    servesRoutes: !bent('video-routes-absent'),
    // The eight models with their seconds and sizes; one fault drops gen4_turbo, one gives vidA-2-pro vidA-2's sizes.
    models: modelTable(bent('video-model-gen-turbo-missing'), bent('video-pro-sizes-missing')),
    // Any other model is refused; the fault serves it by the rules of vidA-2.
    unknownModelServedAs: bent('video-model-unchecked') ? MODEL_RULES['vidA-2'] : undefined,
    // prompt is required and not empty; the fault takes a create without one.
    requirePrompt: !bent('video-prompt-optional'),
    // Section 8: a prompt of at most 1000 characters; one fault allows 1024, one refuses 1000 (the limit is 999).
    promptMaxChars: bent('video-prompt-limit-1024')
      ? 1024
      : STATED.promptMaxChars - (bent('video-prompt-limit-999') ? 1 : 0),
    // seconds is sent as a string; the fault reads a number as its string.
    secondsAsString: !bent('video-seconds-number-accepted'),
    // A model takes its listed seconds; the fault lets vidA models take any multiple of 4.
    listedSecondsOnly: !bent('video-seconds-any-multiple'),
    // A model takes its listed sizes; the fault takes any WIDTHxHEIGHT.
    checkSize: !bent('video-sizes-unchecked'),
    // input_reference is a JPEG, PNG or WebP image; the fault refuses WebP.
    referenceTypes: REFERENCE_TYPES.filter((type) => type !== 'image/webp' || !bent('video-webp-refused')),
    // Bytes that are none of those are refused; the fault takes them (as a PNG).
    checkReferenceType: !bent('video-reference-unchecked'),
    // Section 8: safety_identifier of at most 256 characters; one fault allows 64, one any length.
    safetyIdentifierMaxChars: bent('video-safety-identifier-64')
      ? 64
      : bent('video-safety-identifier-unlimited')
        ? Number.POSITIVE_INFINITY
        : STATED.safetyIdentifierMaxChars,
    // Section 4.1: seconds 4 and size 720x1280 by default; one fault makes the default 8 seconds, one landscape.
    defaultSeconds: bent('video-default-8s') ? '8' : limits.defaultSeconds,
    defaultSize: bent('video-default-landscape') ? '1280x720' : limits.defaultSize,
    // Section 3: a job that starts is charged; the fault charges none.
    chargeStarted: !bent('video-free'),
    // Section 3: a job that cannot start costs nothing; the fault charges it.
    chargeNotStarted: bent('video-failed-charged'),
    // request_id is the svc-request-id of the creating call; the fault gives an id of the gateway's own.
    requestIdOfCall: !bent('video-request-id-own'),
    // Section 4.1: the job exists from submission; the fault discards it when the client hangs up.
    keepOnDisconnect: !bent('video-drop-on-disconnect'),
    // Section 5: the list needs a valid key; the fault serves an empty list without one.
    listNeedsKey: !bent('video-list-open'),
    // Section 5: retrieve needs a valid key; the fault answers a job to a caller without one.
    retrieveNeedsKey: !bent('video-retrieve-open'),
    // The list filters by safety_identifier and request_id; each fault ignores one.
    filterBySafetyIdentifier: !bent('video-filter-safety-ignored'),
    filterByRequestId: !bent('video-filter-request-id-ignored'),
    // Part 1 section 7: an unknown video id is 404; one fault answers 400, one 500 for an id never issued.
    missingVideoStatus: bent('video-unknown-400') ? (400 as const) : (404 as const),
    neverIssuedVideoStatus: bent('video-unknown-500') ? (500 as const) : (404 as const),
    // DELETE removes the job; the fault keeps it.
    deleteRemoves: !bent('video-delete-noop'),
    // Remix is served; the fault answers 404, an unsupported route.
    offersRemix: !bent('video-remix-404'),
    // Section 4.1: edits are not available; the fault serves them like a remix.
    offersEdits: bent('video-edits-served'),
    // A completed job's content is served; the fault answers 404.
    servesContent: !bent('video-content-missing'),
    // Content is served once the job is completed; the fault serves it in any status.
    contentCompletedOnly: !bent('video-content-early'),
  }
}

/** The model table, less gen4_turbo when it is missing, and with vidA-2-pro knowing vidA-2's sizes alone. */
function modelTable(turboMissing: boolean, proSizesMissing: boolean): Readonly<Record<string, ModelRule>> {
  const table = { ...MODEL_RULES }
  if (turboMissing) delete table.gen4_turbo
  const pro = MODEL_RULES['vidA-2-pro']
  if (proSizesMissing && pro !== undefined)
    table['vidA-2-pro'] = { ...pro, sizes: MODEL_RULES['vidA-2']?.sizes ?? pro.sizes }
  return table
}
