/**
 * A client error, any 4xx, read where a test records or branches on one. A success (is2xx, expectSuccess,
 * expectSetup(ex, '2xx', …)) and a refusal the words leave unstated (expectRefused) are harness/worker/assert.ts's.
 */
export const isClientError = (status: number): boolean => status >= 400 && status < 500
