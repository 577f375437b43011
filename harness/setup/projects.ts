/**
 * The vitest projects that hold the conformance suites (vitest.config.ts): every family, then, in a later group
 * that never overlaps it, the tiers family, which counts every call of an account's rate-limit buckets, and last,
 * alone, the check that free calls leave an account's credit unchanged.
 */
export const CONFORMANCE_PROJECTS = ['conformance', 'conformance-tiers', 'conformance-ledger']
