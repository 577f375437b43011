/** The openapi command's flags and help text, apart from openapi.ts so that `openapi --help` renders no document. */
import { parseArgs } from 'node:util'
import { ConfigError } from '../harness/errors.ts'

export const USAGE = `Usage: gateway-conformance openapi [options]

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

export interface Flags {
  output?: string
  format: 'json' | 'yaml'
  server?: string
  help: boolean
}

export function parseFlags(argv: string[]): Flags {
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
