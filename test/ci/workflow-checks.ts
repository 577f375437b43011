/**
 * Checks of the GitHub workflows that can run here, where the workflows themselves cannot: each returns the
 * problems it found (empty when none), so that a test can also show it catches a broken copy.
 */
import { isObject } from '../../common/json.ts'

export interface Step {
  name?: string
  id?: string
  uses?: string
  run?: string
  if?: string
  env?: Record<string, unknown>
  with?: Record<string, unknown>
  'continue-on-error'?: boolean
}

/** One npm invocation: `npm ci`, `npm test` or `npm run <script>`, the word after `--` if any, and our flags. */
interface NpmCommand {
  command: string
  sub?: string
  /** Flags passed to our script (after `--`); npm's own (`npm ci --no-audit`) are npm's business. */
  flags: string[]
  text: string
}

/** Every npm invocation in shell text, one per command of a line (split at ;, &&, ||, |). */
export function npmCommands(shell: string): NpmCommand[] {
  const out: NpmCommand[] = []
  for (const piece of shell.split(/\n|;|&&|\|\||\|/)) {
    const m = /(?:^|\s)npm\s+(.*)$/.exec(piece.replace(/#.*$/, '').trim())
    if (m === null) continue
    const tokens = (m[1] as string)
      .split(/\s+/)
      .filter((t) => t !== '')
      .map((t) => t.replace(/^["']|["']$/g, ''))
    const verb = tokens[0]
    if (verb === undefined) continue
    const command = verb === 'run' ? `npm run ${tokens[1] ?? ''}` : `npm ${verb}`
    const dashes = tokens.indexOf('--')
    const args = dashes < 0 ? [] : tokens.slice(dashes + 1)
    const sub = args[0] !== undefined && /^[a-z][a-z0-9-]*$/.test(args[0]) ? args[0] : undefined
    const flags = args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.split('=')[0] as string)
    out.push({ command, ...(sub === undefined ? {} : { sub }), flags, text: piece.trim() })
  }
  return out
}

/** The code of a Markdown document: fenced blocks and inline code spans. */
function markdownCode(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1] as string)
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '')
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string)
  return [...blocks, ...spans]
}

/** What the README and docs/ document: their npm commands (with their subcommands) and every flag they name. */
export function documented(readme: string): { commands: Set<string>; flags: Set<string> } {
  const commands = new Set<string>()
  const flags = new Set<string>()
  for (const code of markdownCode(readme)) {
    for (const c of npmCommands(code)) {
      commands.add(c.command)
      if (c.sub !== undefined) commands.add(`${c.command} -- ${c.sub}`)
    }
    for (const m of code.matchAll(/(?:^|[\s,(])(--[a-z][a-z0-9-]*)/g)) flags.add(m[1] as string)
  }
  return { commands, flags }
}

/** Problems: npm commands or flags in `shell` that the README and docs/ do not give. */
export function undocumentedCommands(
  shell: string,
  docs: { commands: Set<string>; flags: Set<string> },
  where: string,
): string[] {
  const problems: string[] = []
  for (const c of npmCommands(shell)) {
    const name = c.sub === undefined ? c.command : `${c.command} -- ${c.sub}`
    if (!docs.commands.has(name)) problems.push(`${where}: "${name}" is not a command the README or docs/ give`)
    for (const flag of c.flags)
      if (!docs.flags.has(flag)) problems.push(`${where}: ${flag} of "${c.text}" is not in the README or docs/`)
  }
  return problems
}

export function jobsOf(workflow: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  return isObject(workflow.jobs)
    ? Object.entries(workflow.jobs).filter((e): e is [string, Record<string, unknown>] => isObject(e[1]))
    : []
}

export function stepsOf(job: Record<string, unknown>): Step[] {
  return Array.isArray(job.steps) ? (job.steps.filter(isObject) as Step[]) : []
}

export function allSteps(workflow: Record<string, unknown>): Step[] {
  return jobsOf(workflow).flatMap(([, job]) => stepsOf(job))
}

export function stepLabel(step: Step): string {
  return step.name ?? step.uses ?? step.run?.split('\n')[0] ?? '(a step)'
}

// A variable naming a key header (GATEWAY_NATIVE_KEY_HEADER) holds a header name, not a key.
const KEY_NAME = /KEY(?!_HEADER$)/
const SECRET_REF = /^\$\{\{\s*secrets\.([A-Z0-9_]+)\s*\}\}$/
const CONFIG_REF = /^\$\{\{\s*(?:secrets|vars)\.([A-Z0-9_]+)\s*\}\}$/

/**
 * Keys come only from secrets, the target and budget only from secrets or variables, and secrets only at step
 * level (a workflow- or job-level secret reaches `npm ci` and every install script it runs); no key is written
 * out, and no secret is pasted into a script (where it would be part of the command text).
 */
export function secretProblems(
  workflow: Record<string, unknown>,
  text: string,
  knownKeys: readonly string[],
): string[] {
  const problems: string[] = []
  const envs: Array<[string, unknown, boolean]> = [['workflow env', workflow.env, false]]
  for (const [id, job] of jobsOf(workflow)) {
    envs.push([`job ${id} env`, job.env, false])
    for (const step of stepsOf(job))
      envs.push([
        `step "${stepLabel(step)}" env`,
        step.env,
        !(step.run ?? '').split('\n').some((l) => /(^|\s)npm (ci|install)\b/.test(l)),
      ])
  }
  for (const [where, env, secretsAllowed] of envs) {
    if (!isObject(env)) continue
    for (const [name, value] of Object.entries(env)) {
      const text = String(value)
      if (KEY_NAME.test(name) && !SECRET_REF.test(text))
        problems.push(`${where}: ${name} must be \${{ secrets.${name} }}`)
      if (/^GATEWAY_(BASE_URL|BUDGET_USD)$/.test(name) && !CONFIG_REF.test(text))
        problems.push(`${where}: ${name} must come from secrets. or vars.`)
      if (/secrets\./.test(text) && !secretsAllowed)
        problems.push(`${where}: ${name} brings a secret where npm ci or every step would see it`)
    }
  }
  for (const step of allSteps(workflow)) {
    if (/secrets\./.test(step.run ?? ''))
      problems.push(`step "${stepLabel(step)}": a secret is written into its script; pass it through env`)
  }
  for (const key of knownKeys) if (text.includes(key)) problems.push('a key is written out in the workflow')
  if (/\bsk-[A-Za-z0-9_-]{8,}/.test(text) || /Bearer\s+[A-Za-z0-9]/.test(text))
    problems.push('something shaped like a key is written out in the workflow')
  return problems
}

export function triggers(workflow: Record<string, unknown>): Record<string, unknown> {
  const on = workflow.on
  if (typeof on === 'string') return { [on]: null }
  if (Array.isArray(on)) return Object.fromEntries(on.map((e) => [String(e), null]))
  return isObject(on) ? on : {}
}

/** Five cron fields, each a number, range, list, step or *. */
export function isCron(text: unknown): boolean {
  if (typeof text !== 'string') return false
  const fields = text.trim().split(/\s+/)
  return fields.length === 5 && fields.every((f) => /^(\*|\d+(-\d+)?)(\/\d+)?(,(\*|\d+(-\d+)?)(\/\d+)?)*$/.test(f))
}

export const always = (step: Step | undefined): boolean => typeof step?.if === 'string' && /\balways\(\)/.test(step.if)

export const runs = (step: Step, pattern: RegExp): boolean => pattern.test(step.run ?? '')
export const usesAction = (step: Step, action: string): boolean => (step.uses ?? '').split('@')[0] === action
