/** `--import` it to run a TypeScript entry point in a child process, as the npm scripts do. */
export const TYPESCRIPT_LOADER = new URL('../../scripts/typescript/register.mjs', import.meta.url).href
