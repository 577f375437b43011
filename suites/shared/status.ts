/**
 * Status classes where the words give a class, not a status: a success is any 2xx (Part 1 §7 gives "2xx success",
 * Part 2 §7 no success status of its own for OCR and moderation), a client error any 4xx. The checks on them are
 * harness/worker/assert.ts's expectSuccess, expectSetup(ex, '2xx', …) and expectRefused.
 */
export const is2xx = (status: number): boolean => status >= 200 && status < 300
export const isClientError = (status: number): boolean => status >= 400 && status < 500
