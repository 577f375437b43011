/**
 * The vitest projects that hold the conformance suites (vitest.config.ts): every family, then, in a later group
 * that never overlaps it, the tiers family, which counts every call of an account's rate-limit buckets.
 */
export const CONFORMANCE_PROJECTS = ['conformance', 'conformance-tiers']
