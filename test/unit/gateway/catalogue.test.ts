/** The model catalogue is data (gateway/models/catalogue.json): a bad edit is refused at start-up, naming the field. */
import { describe, expect, test } from 'vitest'
import { CATALOGUE, checkCatalogue } from '../../../gateway/models/catalogue.ts'

const first = () => structuredClone(CATALOGUE[0]) as unknown as Record<string, unknown>

describe('gateway/models/catalogue.json', () => {
  test.each([
    ['mode', 'chatbot', /\/0\/mode: one of chat, /],
    ['minTier', 6, /\/0\/minTier: a tier from 0 to 5/],
    ['rateClass', 'account', /\/0\/rateClass: text, media, utility/],
    ['created', '2025-01-01', /\/0\/created: an integer/],
    ['pricing', { input: 1, output: 2 }, /\/0\/pricing\/cached_input: a number/],
    ['supports', { supports_teleport: true }, /\/0\/supports\/supports_teleport: a boolean flag/],
  ])('%s = %j is refused with the entry and field to fix', (field, value, message) => {
    expect(() => checkCatalogue([{ ...first(), [field]: value }])).toThrow(message)
  })
})
