/**
 * The GitHub workflows cannot run here; this proves what can be proved without GitHub: both parse as YAML, run
 * on the intended triggers, call only commands (and flags) the README and docs/ give, as .ci/run does, take keys only from
 * secrets and only in the steps that call the target, and keep the nightly's reports even when the run fails.
 * Each check is also shown to catch a broken copy.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseDocument } from 'yaml'
import { SEEDED_KEYS } from '../../gateway/account/accounts.ts'
import { ROOT } from '../support/run-conformance.ts'
import {
  allSteps,
  always,
  documented,
  isCron,
  jobsOf,
  npmCommands,
  runs,
  secretProblems,
  stepLabel,
  stepsOf,
  triggers,
  undocumentedCommands,
  usesAction,
  type Step,
} from './workflow-checks.ts'

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
/** The README and the documentation pages under docs/: together they give the commands and flags. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]
const DOCS = documented(PAGES.map(read).join('\n'))
const KEYS = Object.values(SEEDED_KEYS)
const KEY_VARIABLES = [
  'GATEWAY_API_KEY',
  ...[0, 1, 2, 3, 4, 5].map((t) => `GATEWAY_API_KEY_TIER${t}`),
  'GATEWAY_SUSPENDED_API_KEY',
]
const DEFAULT_HISTORY = 'reports/allure-history.jsonl'

function load(path: string): { text: string; workflow: Record<string, unknown> } {
  const text = read(path)
  const doc = parseDocument(text, { uniqueKeys: true })
  expect(
    doc.errors.map((e) => e.message),
    `${path} is valid YAML`,
  ).toEqual([])
  return { text, workflow: doc.toJS() as Record<string, unknown> }
}

const PR = load('.github/workflows/pr.yml')
const NIGHTLY = load('.github/workflows/nightly.yml')

function commandProblems(workflow: Record<string, unknown>, name: string): string[] {
  return allSteps(workflow).flatMap((step) =>
    undocumentedCommands(step.run ?? '', DOCS, `${name} "${stepLabel(step)}"`),
  )
}

function isNpm(step: Step, command: string, sub?: string): boolean {
  return npmCommands(step.run ?? '').some((c) => c.command === command && c.sub === sub)
}

/** Part of the README's promise: `npm ci` then `npm test`, on the Node versions it names. */
function prProblems(workflow: Record<string, unknown>): string[] {
  const problems: string[] = []
  const on = triggers(workflow)
  if (!('pull_request' in on)) problems.push('not run on pull_request')
  const push = on.push as Record<string, unknown> | null | undefined
  if (!Array.isArray(push?.branches) || !push.branches.includes('main')) problems.push('not run on a push to main')
  const jobs = jobsOf(workflow)
  if (jobs.length === 0) problems.push('no job')
  for (const [id, job] of jobs) {
    const steps = stepsOf(job)
    if (!steps.some((s) => s.uses === 'actions/checkout@v4')) problems.push(`${id}: no actions/checkout@v4`)
    const setup = steps.find((s) => s.uses === 'actions/setup-node@v4')
    const version = String(setup?.with?.['node-version'] ?? '')
    const matrix = (
      (job.strategy as Record<string, unknown> | undefined)?.matrix as Record<string, unknown> | undefined
    )?.node
    const versions = /matrix\.node/.test(version) && Array.isArray(matrix) ? matrix.map(String) : [version]
    if (setup === undefined || !versions.some((v) => /^22(\.|$)/.test(v)))
      problems.push(`${id}: no actions/setup-node@v4 with Node 22`)
    const ci = steps.findIndex((s) => isNpm(s, 'npm ci'))
    const tests = steps.findIndex((s) => isNpm(s, 'npm test'))
    if (ci < 0 || tests < 0 || ci > tests) problems.push(`${id}: not npm ci then npm test`)
  }
  return problems
}

function historyPath(workflow: Record<string, unknown>): string {
  const env = (workflow.env ?? {}) as Record<string, unknown>
  return typeof env.GATEWAY_ALLURE_HISTORY === 'string' ? env.GATEWAY_ALLURE_HISTORY : DEFAULT_HISTORY
}

/** The cache path names the history file, literally or through the variable the report reads. */
function cachesHistory(step: Step | undefined, history: string): boolean {
  const path = String(step?.with?.path ?? '')
  return path === history || /^\$\{\{\s*env\.GATEWAY_ALLURE_HISTORY\s*\}\}$/.test(path)
}

function nightlyProblems(workflow: Record<string, unknown>): string[] {
  const problems: string[] = []
  const on = triggers(workflow)
  const schedule = on.schedule
  if (
    !Array.isArray(schedule) ||
    schedule.length === 0 ||
    !schedule.every((s) => isCron((s as Record<string, unknown>).cron))
  )
    problems.push('no valid schedule cron')
  if (!('workflow_dispatch' in on)) problems.push('cannot be run by hand (workflow_dispatch)')
  const steps = allSteps(workflow)
  const at = (test: (s: Step) => boolean): number => steps.findIndex(test)
  const ci = at((s) => isNpm(s, 'npm ci'))
  const restore = at((s) => usesAction(s, 'actions/cache/restore'))
  const sweep = at((s) => isNpm(s, 'npm run conformance', 'sweep') && runs(s, /--yes\b/))
  const conf = at((s) => isNpm(s, 'npm run conformance'))
  const summary = at((s) => runs(s, /cat reports\/latest\/summary\.md >> "?\$GITHUB_STEP_SUMMARY"?/))
  const report = at((s) => isNpm(s, 'npm run report'))
  const save = at((s) => usesAction(s, 'actions/cache/save'))
  const upload = at((s) => usesAction(s, 'actions/upload-artifact'))
  const history = historyPath(workflow)
  if (ci < 0) problems.push('no npm ci')
  if (conf < 0) return [...problems, 'no npm run conformance']
  const confStep = steps[conf] as Step
  if (sweep < 0 || sweep > conf) problems.push('no sweep --yes before the run')
  if (!KEY_VARIABLES.every((name) => name in (confStep.env ?? {})) || !('GATEWAY_BASE_URL' in (confStep.env ?? {})))
    problems.push('the conformance step is not given the base URL and every key')
  // The run must not end the job before its reports are kept: continue-on-error, or its exit code kept.
  const kept =
    confStep['continue-on-error'] === true ||
    (runs(confStep, /set \+e/) && runs(confStep, /\$\?.*>>\s*"?\$GITHUB_OUTPUT/))
  if (!kept) problems.push('a failing conformance run would skip the report steps')
  const verdict = steps
    .slice(conf + 1)
    .find(
      (s) =>
        always(s) &&
        confStep.id !== undefined &&
        JSON.stringify(s).includes(`steps.${confStep.id}.outputs.`) &&
        runs(s, /\bexit\b/),
    )
  if (confStep['continue-on-error'] !== true && verdict === undefined)
    problems.push('no final step that fails the job with the conformance exit code')
  if (summary < conf || !always(steps[summary]))
    problems.push('summary.md is not put on the job page with if: always()')
  if (report < conf || !always(steps[report])) problems.push('npm run report does not follow the run with if: always()')
  if (restore < 0 || restore > report || !cachesHistory(steps[restore], history))
    problems.push(`the Allure history (${history}) is not restored before the report`)
  if (save < report || !always(steps[save]) || !cachesHistory(steps[save], history))
    problems.push('the Allure history is not saved after the report with if: always()')
  if (upload < conf || !always(steps[upload])) problems.push('reports are not uploaded with if: always()')
  const uploaded = String(steps[upload]?.with?.path ?? '')
  const producer = /steps\.([\w-]+)\.outputs/.exec(uploaded)?.[1]
  const source = producer === undefined ? uploaded : (steps.find((s) => s.id === producer)?.run ?? '')
  if (upload >= 0 && !/reports\/latest/.test(source))
    problems.push('the upload does not take the run folder behind reports/latest')
  return problems
}

function ciRunProblems(text: string): string[] {
  const commands = npmCommands(
    text
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n'),
  )
  const ci = commands.findIndex((c) => c.command === 'npm ci')
  const tests = commands.findIndex((c) => c.command === 'npm test')
  return [
    ...(ci < 0 || tests < 0 || ci > tests ? ['.ci/run does not run npm ci then npm test'] : []),
    ...undocumentedCommands(text, DOCS, '.ci/run'),
  ]
}

/** A copy of a workflow with one change, to show that a check sees it. */
function broken(
  workflow: Record<string, unknown>,
  change: (copy: Record<string, unknown>, steps: Step[]) => void,
): Record<string, unknown> {
  const copy = structuredClone(workflow)
  change(copy, allSteps(copy))
  return copy
}

const stepRunning = (steps: Step[], pattern: RegExp): Step => {
  const step = steps.find((s) => pattern.test(s.run ?? '') || pattern.test(s.uses ?? ''))
  if (step === undefined) throw new Error(`no step matches ${pattern}`)
  return step
}

describe('the README, docs/ and .ci/run', () => {
  test('the README and docs/ give the commands the workflows are held to', () => {
    for (const c of [
      'npm ci',
      'npm test',
      'npm run conformance',
      'npm run conformance -- sweep',
      'npm run report',
      'npm run load',
    ])
      expect(DOCS.commands, c).toContain(c)
    expect(DOCS.commands).not.toContain('npm run deploy')
  })

  test('.ci/run runs npm ci, then npm test, as the README says', () => {
    expect(ciRunProblems(read('.ci/run'))).toEqual([])
    expect(ciRunProblems('#!/usr/bin/env bash\nnpm ci\n# npm test\n')).toEqual([
      '.ci/run does not run npm ci then npm test',
    ])
  })
})

describe('.github/workflows/pr.yml', () => {
  test('runs on pull requests and pushes to main: checkout, setup-node with Node 22, npm ci, npm test', () => {
    expect(prProblems(PR.workflow)).toEqual([])
    expect(prProblems(broken(PR.workflow, (w) => delete (w.on as Record<string, unknown>).pull_request))).toContain(
      'not run on pull_request',
    )
    expect(prProblems(broken(PR.workflow, (_, steps) => (stepRunning(steps, /npm ci/).run = 'npm install')))).toContain(
      'test: not npm ci then npm test',
    )
  })

  test('calls only commands the README and docs/ give; no key anywhere', () => {
    expect(commandProblems(PR.workflow, 'pr')).toEqual([])
    expect(secretProblems(PR.workflow, PR.text, KEYS)).toEqual([])
  })
})

describe('.github/workflows/nightly.yml', () => {
  test('on a schedule and by hand: sweep, run, summary, report with cached history, artifacts, the exit code', () => {
    expect(nightlyProblems(NIGHTLY.workflow)).toEqual([])
  })

  test('calls only commands and flags the README and docs/ give', () => {
    expect(commandProblems(NIGHTLY.workflow, 'nightly')).toEqual([])
    const deploy = broken(NIGHTLY.workflow, (_, steps) => (stepRunning(steps, /npm run report/).run = 'npm run deploy'))
    expect(commandProblems(deploy, 'nightly')).toEqual([
      'nightly "Allure report with history": "npm run deploy" is not a command the README or docs/ give',
    ])
    const flag = broken(
      NIGHTLY.workflow,
      (_, steps) => (stepRunning(steps, /sweep --yes/).run = 'npm run conformance -- sweep --yes --everything'),
    )
    expect(commandProblems(flag, 'nightly')).toEqual([
      'nightly "Sweep what earlier runs left behind": --everything of "npm run conformance -- sweep --yes --everything" is not in the README or docs/',
    ])
  })

  test('keys only from secrets, only in the steps that call the target, never written out', () => {
    expect(secretProblems(NIGHTLY.workflow, NIGHTLY.text, KEYS)).toEqual([])
    const conf = (steps: Step[]) => stepRunning(steps, /npm run conformance\n/)
    const literal = broken(
      NIGHTLY.workflow,
      (_, steps) => ((conf(steps).env as Record<string, unknown>).GATEWAY_API_KEY = SEEDED_KEYS.tier3),
    )
    expect(secretProblems(literal, JSON.stringify(literal), KEYS)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/GATEWAY_API_KEY must be \$\{\{ secrets\.GATEWAY_API_KEY \}\}/),
        'a key is written out in the workflow',
      ]),
    )
    const fromVars = broken(
      NIGHTLY.workflow,
      (_, steps) =>
        ((conf(steps).env as Record<string, unknown>).GATEWAY_API_KEY_TIER1 = '${{ vars.GATEWAY_API_KEY_TIER1 }}'),
    )
    expect(secretProblems(fromVars, '', [])).toEqual([expect.stringMatching(/GATEWAY_API_KEY_TIER1 must be/)])
    const jobWide = broken(
      NIGHTLY.workflow,
      (w) =>
        (((w.jobs as Record<string, unknown>).conformance as Record<string, unknown>).env = {
          GATEWAY_API_KEY: '${{ secrets.GATEWAY_API_KEY }}',
        }),
    )
    expect(secretProblems(jobWide, '', [])).toEqual([
      'job conformance env: GATEWAY_API_KEY brings a secret where npm ci or every step would see it',
    ])
    const inScript = broken(
      NIGHTLY.workflow,
      (_, steps) =>
        (stepRunning(steps, /npm run report/).run = 'curl -H "authorization: ${{ secrets.GATEWAY_API_KEY }}" x'),
    )
    expect(secretProblems(inScript, '', [])).toEqual([
      'step "Allure report with history": a secret is written into its script; pass it through env',
    ])
  })

  test('a failing run still leaves its summary, report, history and artifacts', () => {
    const upload = broken(NIGHTLY.workflow, (_, steps) => delete stepRunning(steps, /upload-artifact/).if)
    expect(nightlyProblems(upload)).toEqual(['reports are not uploaded with if: always()'])
    const stops = broken(
      NIGHTLY.workflow,
      (_, steps) => (stepRunning(steps, /npm run conformance\n/).run = 'npm run conformance\n'),
    )
    expect(nightlyProblems(stops)).toEqual(['a failing conformance run would skip the report steps'])
    const noSave = broken(
      NIGHTLY.workflow,
      (_, steps) => (stepRunning(steps, /actions\/cache\/save/).if = "hashFiles('x') != ''"),
    )
    expect(nightlyProblems(noSave)).toEqual(['the Allure history is not saved after the report with if: always()'])
    const noSweep = broken(
      NIGHTLY.workflow,
      (_, steps) => (stepRunning(steps, /sweep --yes/).run = 'npm run conformance -- sweep'),
    )
    expect(nightlyProblems(noSweep)).toEqual(['no sweep --yes before the run'])
    const noSchedule = broken(
      NIGHTLY.workflow,
      (w) => ((w.on as Record<string, unknown>).schedule = [{ cron: 'nightly' }]),
    )
    expect(nightlyProblems(noSchedule)).toEqual(['no valid schedule cron'])
  })
})
