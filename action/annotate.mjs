/**
 * node action/annotate.mjs SUMMARY_JSON OUTPUT_FILE: a GitHub annotation per failed requirement (error for a MUST
 * or a harness error, warning for a SHOULD) as workflow commands on stdout, and `verdict=…` appended to OUTPUT_FILE
 * (GITHUB_OUTPUT). summary.json is written redacted, so no key reaches an annotation.
 */
import { appendFileSync, readFileSync } from 'node:fs'

const summary = JSON.parse(readFileSync(process.argv[2], 'utf8'))
/** Workflow command values: %, CR and LF escaped; properties also : and ,. */
const data = (text) => text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
const property = (text) => data(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
const seen = (r) => {
  const message = r.evidence?.[0]?.message ?? ''
  return (message.split('\n').find((line) => line.startsWith('Seen:')) ?? message.split('\n')[0] ?? '').slice(0, 300)
}
for (const r of summary.requirements) {
  if (r.status !== 'fail' && r.status !== 'warn' && r.status !== 'error') continue
  const level = r.status === 'warn' ? 'warning' : 'error'
  const title = property(`${r.id} (${r.level}, Part ${r.part} §${r.section})`)
  process.stdout.write(`::${level} title=${title}::${data(`${r.rule}${seen(r) ? `\n${seen(r)}` : ''}`)}\n`)
}
// The verdict as a word a workflow can test; a selection is never "conformant".
const partial = summary.scope && !summary.scope.whole
appendFileSync(process.argv[3], `verdict=${partial ? `partial-${summary.verdict}` : summary.verdict}\n`)
