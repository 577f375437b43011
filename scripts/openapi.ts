/**
 * gateway-conformance openapi [--output FILE] [--format json|yaml] [--server URL]
 * Prints the OpenAPI 3.1 document of the reference API, generated from the request and response schemas
 * (harness/openapi/document.ts). Exit codes: 0 written; 2 bad options or a file that cannot be written.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { stringify } from 'yaml'
import { openApiDocument } from '../harness/openapi/document.ts'
import { ConfigError, isHarnessError } from '../harness/errors.ts'

const PACKAGE = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as {
  name: string
  version: string
}

const USAGE = `Usage: gateway-conformance openapi [options]

Prints the OpenAPI 3.1 document of the Model Gateway API (both parts of the reference), generated from the
request and response schemas under schemas/: paths, parameters and bodies with the words each constraint rests
on (x-quote), the answers with the error bodies of §7, and the security schemes. Mock it, lint it, or generate a
client from it.

Options:
  --output FILE         write the document to FILE instead of standard output
  --format json|yaml    json (default) or yaml
  --server URL          the server the document names (default https://gateway.example)
  -h, --help            this text

Exit codes: 0 written, 2 bad options or a file that cannot be written.
`

interface Flags {
  output?: string
  format: 'json' | 'yaml'
  server?: string
  help: boolean
}

function parseFlags(argv: string[]): Flags {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        output: { type: 'string' },
        format: { type: 'string' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see gateway-conformance openapi --help)`)
  }
  const format = (values.format as string | undefined) ?? 'json'
  if (format !== 'json' && format !== 'yaml') throw new ConfigError(`--format must be json or yaml (got "${format}")`)
  const server = values.server as string | undefined
  if (server !== undefined && !URL.canParse(server))
    throw new ConfigError(`--server must be a URL such as https://gateway.example (got "${server}")`)
  return { output: values.output as string | undefined, format, server, help: values.help === true }
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
