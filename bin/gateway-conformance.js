#!/usr/bin/env node
/**
 * The package's one command (scripts/cli.ts). An installed package runs the JavaScript compiled at pack time (node
 * strips no types under node_modules); a clone, which has only the TypeScript, runs it as it is.
 */
import { existsSync } from 'node:fs'

const compiled = new URL('../scripts/cli.js', import.meta.url)
const entry = existsSync(compiled) ? compiled : new URL('../scripts/cli.ts', import.meta.url)
const { cli } = await import(entry.href)
const code = await cli(process.argv.slice(2))
if (code !== undefined) process.exitCode = code
