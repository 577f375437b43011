/**
 * Runs the `run:` steps of the composite Action (action.yml) as the GitHub runner would, to the extent this machine
 * can: `${{ inputs.* }}` and `${{ steps.<id>.outputs.* }}` expressions, each step's `env`, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, and the `if:` conditions the Action uses (always(), &&, != ''). Steps that `uses:`
 * another action (setup-node, upload-artifact) are GitHub's and are listed, not run.
 */
import { runChild } from './child.ts'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

interface ActionStep {
  id?: string
  name?: string
  if?: string
  uses?: string
  run?: string
  shell?: string
  env?: Record<string, string>
  with?: Record<string, string>
}

export interface Action {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, { value: string }>
  runs: { using: string; steps: ActionStep[] }
}

export interface StepRun {
  name: string
  skipped: boolean
  uses?: string
  code: number
  stdout: string
  stderr: string
  outputs: Record<string, string>
}

export interface ActionRun {
  steps: StepRun[]
  outputs: Record<string, string>
  summary: string
}

export function readAction(root: string): Action {
  return parse(readFileSync(join(root, 'action.yml'), 'utf8')) as Action
}

function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const at = line.indexOf('=')
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1)
  }
  return out
}

export async function runAction(options: {
  root: string
  scratch: string
  inputs: Record<string, string>
  env: Record<string, string>
  /** Steps (by id) not to run again; their outputs come from `given`. */
  skip?: string[]
  /** Run only these steps (by id). */
  only?: string[]
  given?: Record<string, Record<string, string>>
}): Promise<ActionRun> {
  const action = readAction(options.root)
  for (const name of Object.keys(options.inputs))
    if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`)
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, options.inputs[name] ?? spec.default ?? '']),
  )
  const stepOutputs: Record<string, Record<string, string>> = { ...(options.given ?? {}) }
  const expand = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_all, expr: string) => value(expr))
  const value = (expr: string): string => {
    const input = /^inputs\.([\w-]+)$/.exec(expr)
    if (input) return inputs[input[1] as string] ?? ''
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr)
    if (output) return stepOutputs[output[1] as string]?.[output[2] as string] ?? ''
    if (/^github\.run_(id|attempt)$/.test(expr)) return '1'
    throw new Error(`the Action runner here does not know the expression ${expr}`)
  }
  const holds = (condition: string | undefined): boolean => {
    if (condition === undefined) return true
    return condition.split('&&').every((term) => {
      const t = term.trim()
      if (t === 'always()') return true
      const compare = /^(.+?)\s*(!=|==)\s*''$/.exec(t)
      if (!compare) throw new Error(`the Action runner here does not know the condition ${t}`)
      const v = value((compare[1] as string).trim())
      return compare[2] === '!=' ? v !== '' : v === ''
    })
  }
  const summaryFile = join(options.scratch, 'step-summary.md')
  writeFileSync(summaryFile, '')
  const steps: StepRun[] = []
  for (const [index, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${index}`
    if (step.id !== undefined && options.skip?.includes(step.id)) continue
    if (options.only && !options.only.includes(step.id ?? '')) continue
    if (step.uses !== undefined || !holds(step.if)) {
      steps.push({
        name,
        skipped: true,
        ...(step.uses ? { uses: step.uses } : {}),
        code: 0,
        stdout: '',
        stderr: '',
        outputs: {},
      })
      continue
    }
    const outputFile = join(options.scratch, `output-${index}`)
    writeFileSync(outputFile, '')
    const env = {
      ...options.env,
      GITHUB_ACTION_PATH: options.root,
      RUNNER_TEMP: options.scratch,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v))])),
    }
    const result = await runChild('bash', ['-e', '-c', expand(step.run ?? '')], { cwd: options.scratch, env })
    const outputs = parseOutputs(readFileSync(outputFile, 'utf8'))
    if (step.id) stepOutputs[step.id] = outputs
    steps.push({ name, skipped: false, ...result, outputs })
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, o]) => [name, expand(o.value)]))
  return { steps, outputs, summary: readFileSync(summaryFile, 'utf8') }
}
