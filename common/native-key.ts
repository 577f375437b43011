/**
 * The header the native interface takes a key in, as the reference writes it (its vendor word replaced by a neutral
 * one): the gateway's default and the suites' default, which a real gateway's own header name overrides.
 */
export const DEFAULT_NATIVE_KEY_HEADER = 'x-native-api-key'
