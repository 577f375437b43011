/**
 * node --import ./scripts/typescript/register.mjs <script.ts>: runs a TypeScript entry point of the project (hooks.mjs).
 * Stack traces point into the .ts files through the inline source maps.
 */
import { register } from 'node:module'

process.setSourceMapsEnabled(true)
register('./hooks.mjs', import.meta.url)
