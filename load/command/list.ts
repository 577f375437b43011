/** What --list prints: every profile with its description, then how to state a limit the target does not announce. */
import { allProfiles } from '../profiles/index.ts'

/** A limit the embedded gateway enforces without announcing it, stated to the harness: what --list ends with. */
export const STATED_EXAMPLE =
  "npm run load -- --profile stated-limits --route-limit 'POST /v1/chat/completions=30/10s' " +
  "--limit 'chat=30/10s,headers=requests'"

export function listProfiles(): string {
  const profiles = allProfiles()
  const width = Math.max(...profiles.map((p) => p.name.length))
  return `${profiles.map((p) => `${p.name.padEnd(width)}  ${p.description}`).join('\n')}

Limits the target does not announce are judged as you state them (--limit), e.g. against the embedded gateway
given one its catalogue does not show (--route-limit):
  ${STATED_EXAMPLE}
`
}
