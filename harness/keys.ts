/**
 * The key slots of a run and the environment variable of each: read by the configuration, by the exchange excerpt
 * (which key a call carried) and by the curl lines and redaction that name a key by its variable.
 */
import keyVariables from '../schemas/config/key-variables.json' with { type: 'json' }

/** `second`: another key of the main key's account, for the limits all keys of an organization share (§8.3). */
export const KEY_SLOTS = ['main', 'tier0', 'tier1', 'tier2', 'tier3', 'tier4', 'tier5', 'suspended', 'second'] as const
export type KeySlot = (typeof KEY_SLOTS)[number]

/** The environment variable that holds each key; also what curl lines print in place of the key. */
export const KEY_ENV: Readonly<Record<KeySlot, string>> = keyVariables.keys
