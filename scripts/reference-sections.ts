/**
 * node scripts/reference-sections.ts <folder>: writes schemas/reference/sections.json from the reference's two
 * Markdown files in <folder> (gateway-api-part-1.md, gateway-api-part-2.md), through harness/reference.ts. Run it by
 * hand when the reference changes; the repository carries the result.
 */
import { fileURLToPath } from 'node:url'
import { writeReferenceSections } from '../harness/reference.ts'

function main(argv: string[]): number {
  const folder = argv[0]
  if (folder === undefined || argv.length !== 1) {
    process.stderr.write(
      'usage: node scripts/reference-sections.ts <folder holding gateway-api-part-1.md and gateway-api-part-2.md>\n',
    )
    return 2
  }
  process.stdout.write(`wrote ${writeReferenceSections(folder)}\n`)
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2))
