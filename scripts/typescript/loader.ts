/** `--import` it to run a TypeScript entry point in a child process, as the npm scripts do (register.mjs). */
export const TYPESCRIPT_LOADER = new URL('./register.mjs', import.meta.url).href
