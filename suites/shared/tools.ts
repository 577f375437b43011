/**
 * A function tool shared by the chat and responses suites, named so that no prompt of the suites names it by
 * chance. Its parameters are a strict schema (Part 1 §4.5 rule 5: additionalProperties false, explicit required).
 * Each family wraps it in its own convention.
 */
export const WEATHER_FUNCTION = {
  name: 'gc_lookup_weather',
  description: 'Looks up the current weather for a city.',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
} as const
