/**
 * A family's rules module is where a reader finds every fault of the family (gateway/README.md, Faults): each fault
 * either bends a value of `<family>/rules.ts` or is one of the family's reshapes, and none does both; a fault that only
 * lifts request-schema constraints (`relaxes`, gateway/request-validation.ts) may do neither.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { chatRules } from '../../../gateway/chat/rules.ts'
import { systemClock } from '../../../gateway/clock.ts'
import { compatibleRules } from '../../../gateway/compatible/rules.ts'
import { FAULTS, type FaultName, type FaultSet } from '../../../gateway/faults/registry.ts'
import { CHAT_ANSWER_RESHAPES, CHAT_STREAM_RESHAPES } from '../../../gateway/chat/reshapes.ts'
import { CHAT_FAULTS } from '../../../gateway/chat/faults.ts'
import { COMPATIBLE_FAULTS } from '../../../gateway/compatible/faults.ts'
import {
  MODERATION_ANSWER_RESHAPES,
  MODERATION_INLINE_ANSWER_RESHAPES,
  MODERATION_INLINE_STREAM_RESHAPES,
} from '../../../gateway/moderation/reshapes.ts'
import { MODERATION_FAULTS } from '../../../gateway/moderation/faults.ts'
import { MODELS_ANSWER_RESHAPES } from '../../../gateway/models/reshapes.ts'
import { MODELS_FAULTS } from '../../../gateway/models/faults.ts'
import { OCR_ANSWER_RESHAPES } from '../../../gateway/ocr/reshapes.ts'
import { OCR_FAULTS } from '../../../gateway/ocr/faults.ts'
import { RESPONSES_ANSWER_RESHAPES, RESPONSES_STREAM_RESHAPES } from '../../../gateway/responses/reshapes.ts'
import { RESPONSES_FAULTS } from '../../../gateway/responses/faults.ts'
import { SEARCH_ANSWER_RESHAPES } from '../../../gateway/search/reshapes.ts'
import { SEARCH_FAULTS } from '../../../gateway/search/faults.ts'
import { UNAVAILABLE_ANSWER_RESHAPES } from '../../../gateway/unavailable/reshapes.ts'
import { UNAVAILABLE_FAULTS } from '../../../gateway/unavailable/faults.ts'
import { videosAnswerReshapes } from '../../../gateway/videos/reshapes.ts'
import { VIDEOS_FAULTS } from '../../../gateway/videos/faults.ts'
import { modelsRules } from '../../../gateway/models/rules.ts'
import { moderationRules } from '../../../gateway/moderation/rules.ts'
import { FILES_ANSWER_RESHAPES } from '../../../gateway/files/reshapes.ts'
import { FILES_FAULTS } from '../../../gateway/files/faults.ts'
import { ACCOUNT_ANSWER_RESHAPES } from '../../../gateway/account/reshapes.ts'
import { ACCOUNT_FAULTS } from '../../../gateway/account/faults.ts'
import { HEADERS_HEADER_RESHAPES } from '../../../gateway/hooks/headers-reshapes.ts'
import { HEADERS_FAULTS } from '../../../gateway/hooks/headers-faults.ts'
import { AUTH_FAULTS } from '../../../gateway/hooks/auth-faults.ts'
import { filesRules } from '../../../gateway/files/rules.ts'
import { accountRules } from '../../../gateway/account/rules.ts'
import { authRules, rateLimitRules, requestIdRules } from '../../../gateway/hooks/rules.ts'
import { ocrRules } from '../../../gateway/ocr/rules.ts'
import { responseRules } from '../../../gateway/responses/rules.ts'
import { searchRules } from '../../../gateway/search/rules.ts'
import { unavailableRules } from '../../../gateway/unavailable/rules.ts'
import { videoRules } from '../../../gateway/videos/rules.ts'

interface Family {
  readonly family: string
  readonly faults: readonly { readonly name: FaultName }[]
  readonly rules: (faults: FaultSet) => unknown
  /** The family's reshape tables, by fault name. */
  readonly reshapes: readonly object[]
}

const FAMILIES: readonly Family[] = [
  { family: 'search', faults: SEARCH_FAULTS, rules: searchRules, reshapes: [SEARCH_ANSWER_RESHAPES] },
  { family: 'ocr', faults: OCR_FAULTS, rules: ocrRules, reshapes: [OCR_ANSWER_RESHAPES] },
  { family: 'videos', faults: VIDEOS_FAULTS, rules: videoRules, reshapes: [videosAnswerReshapes(systemClock)] },
  {
    family: 'responses',
    faults: RESPONSES_FAULTS,
    rules: responseRules,
    reshapes: [RESPONSES_ANSWER_RESHAPES, RESPONSES_STREAM_RESHAPES],
  },
  { family: 'chat', faults: CHAT_FAULTS, rules: chatRules, reshapes: [CHAT_ANSWER_RESHAPES, CHAT_STREAM_RESHAPES] },
  {
    family: 'moderation',
    faults: MODERATION_FAULTS,
    rules: moderationRules,
    reshapes: [MODERATION_ANSWER_RESHAPES, MODERATION_INLINE_ANSWER_RESHAPES, MODERATION_INLINE_STREAM_RESHAPES],
  },
  { family: 'compatible', faults: COMPATIBLE_FAULTS, rules: compatibleRules, reshapes: [] },
  { family: 'models', faults: MODELS_FAULTS, rules: modelsRules, reshapes: [MODELS_ANSWER_RESHAPES] },
  {
    family: 'unavailable',
    faults: UNAVAILABLE_FAULTS,
    rules: unavailableRules,
    reshapes: [UNAVAILABLE_ANSWER_RESHAPES],
  },
  { family: 'files', faults: FILES_FAULTS, rules: filesRules, reshapes: [FILES_ANSWER_RESHAPES] },
  // The usage limit's two faults are the account family's, kept with the other limits in the hooks' rules.
  {
    family: 'account',
    faults: ACCOUNT_FAULTS,
    rules: (faults) => ({ ...accountRules(faults), ...rateLimitRules(faults) }),
    reshapes: [ACCOUNT_ANSWER_RESHAPES],
  },
  // ratelimit-reset-epoch bends the reset header the rate-limit hook writes.
  {
    family: 'headers',
    faults: HEADERS_FAULTS,
    rules: (faults) => ({ ...requestIdRules(faults), ...rateLimitRules(faults) }),
    reshapes: [HEADERS_HEADER_RESHAPES],
  },
  { family: 'auth', faults: AUTH_FAULTS, rules: authRules, reshapes: [] },
]

describe.each(FAMILIES)('$family', ({ faults, rules, reshapes }) => {
  const faithful = rules(new Set())

  it.each(faults.map((fault) => fault.name))('%s bends a rule or reshapes, not both', (name) => {
    const bendsRule = !isDeepStrictEqual(rules(new Set([name])), faithful)
    const reshaped = reshapes.some((table) => name in table)
    const relaxes = FAULTS.find((fault) => fault.name === name)?.relaxes !== undefined
    if (relaxes && !bendsRule && !reshaped) return
    expect(bendsRule !== reshaped, `${name}: bends a rule ${bendsRule}, reshapes ${reshaped}`).toBe(true)
  })
})
