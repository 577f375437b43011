/**
 * What can be proved of the Action, the image and the example workflow without GitHub or Docker (their steps run
 * in test/cli/pack.test.ts): the example calls the Action with inputs it has, keys only from secrets, and every
 * input reaches a step; the image installs as the self-test does and runs as a user, not root.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parse } from 'yaml'
import { readAction } from '../support/action-runner.ts'
import { ROOT } from '../support/run-conformance.ts'

const action = readAction(ROOT)
const actionText = readFileSync(join(ROOT, 'action.yml'), 'utf8')
const KEY_INPUTS = ['api-key', ...[0, 1, 2, 3, 4, 5].map((t) => `api-key-tier${t}`), 'suspended-api-key']

describe('action.yml', () => {
  test('a composite action whose every input is used by a step', () => {
    expect(action.runs.using).toBe('composite')
    for (const name of Object.keys(action.inputs))
      expect(actionText.includes(`inputs.${name} }}`), `input ${name} is used`).toBe(true)
  })

  test('keys reach the scripts as environment variables only, never on a command line', () => {
    for (const step of action.runs.steps) {
      for (const name of KEY_INPUTS) expect(step.run ?? '').not.toContain(`inputs.${name}`)
    }
  })

  test('outputs: the verdict, the exit code and the report folder, from the conformance step', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(['exit-code', 'report-dir', 'verdict'])
    for (const output of Object.values(action.outputs)) expect(output.value).toMatch(/steps\.conformance\.outputs\./)
  })
})

describe('examples/nightly.yml', () => {
  const workflow = parse(readFileSync(join(ROOT, 'examples/nightly.yml'), 'utf8')) as {
    on: Record<string, unknown>
    jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>
  }
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps)
  const gc = steps.find((s) => /gateway-conformance@/.test(s.uses ?? ''))

  test('runs nightly and by hand, through the Action', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch'])
    expect(gc).toBeDefined()
  })

  test('gives only inputs the Action has, and every key from a secret', () => {
    for (const [name, value] of Object.entries(gc?.with ?? {})) {
      expect(action.inputs, `input ${name}`).toHaveProperty(name)
      if (KEY_INPUTS.includes(name)) expect(value).toMatch(/^\$\{\{ secrets\.[A-Z0-9_]+ \}\}$/)
    }
  })
})

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  const lines = dockerfile.split('\n').filter((l) => !l.startsWith('#'))

  test('installs the packed tarball with the install script the self-tests use', () => {
    expect(dockerfile).toMatch(
      /^RUN node scripts\/install-packed\.mjs "\/build\/\$\{TARBALL\}" \/opt\/gateway-conformance/m,
    )
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).toContain('!scripts/install-packed.mjs')
  })

  test('runs the command as a user that is not root, with reports under /reports', () => {
    const users = lines.filter((l) => l.startsWith('USER '))
    expect(users.at(-1)).toBe('USER node')
    expect(lines).toContain('ENTRYPOINT ["gateway-conformance"]')
    expect(dockerfile).toContain('ln -s /reports /work/reports')
    expect(lines).toContain('WORKDIR /work')
  })
})
