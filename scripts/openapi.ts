/**
 * gateway-conformance openapi [--output FILE] [--format json|yaml] [--server URL]
 * Prints the OpenAPI 3.1 document of the reference API, generated from the request and response schemas
 * (harness/openapi/document.ts). Exit codes: 0 written; 2 bad options or a file that cannot be written.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { openApiDocument } from '../harness/openapi/document.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'
import { parseFlags, USAGE } from './openapi-flags.ts'

const PACKAGE = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as {
  name: string
  version: string
}

/** The openapi command: the exit code; errors are one line on stderr. */
export async function openapiCommand(argv: string[]): Promise<number> {
  try {
    const flags = parseFlags(argv)
    if (flags.help) {
      process.stdout.write(USAGE)
      return 0
    }
    const document = openApiDocument({ server: flags.server, generator: `${PACKAGE.name} ${PACKAGE.version}` })
    const text =
      flags.format === 'yaml' ? stringify(document, { lineWidth: 0 }) : `${JSON.stringify(document, null, 2)}\n`
    if (flags.output === undefined) process.stdout.write(text)
    else {
      try {
        writeFileSync(resolve(flags.output), text)
      } catch (error) {
        throw new ConfigError(
          `cannot write ${flags.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        )
      }
    }
    return 0
  } catch (error) {
    if (!isHarnessError(error)) throw error
    process.stderr.write(`openapi: ${error.message}\n`)
    return 2
  }
}
