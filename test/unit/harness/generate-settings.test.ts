/** The generation phase's settings: --generate-runs and --generate-seed, the config file's generate, their checks. */
import { describe, expect, test } from 'vitest'
import { parseFlags } from '../../../harness/command/conformance-flags.ts'
import { GENERATE_DEFAULTS } from '../../../harness/generate/settings.ts'
import { applyConfigFile } from '../../../harness/setup/config-file.ts'
import { resolveOptions } from '../../../harness/setup/config.ts'
import { configErrorOf } from '../../support/config-error.ts'

const resolve = (argv: string[]) => resolveOptions({}, parseFlags(argv).flags, [], ['models'])

describe('generate settings', () => {
  test('default: a few cases per route, a fixed seed', () => {
    expect(resolve([]).generate).toEqual({ runs: GENERATE_DEFAULTS.runs, seed: GENERATE_DEFAULTS.seed })
  })

  test('the flags set both; runs 0 turns the phase off', () => {
    expect(resolve(['--generate-runs', '0', '--generate-seed', '42']).generate).toEqual({ runs: 0, seed: 42 })
  })

  test('a bad value is one line naming the flag', () => {
    expect(configErrorOf(() => resolve(['--generate-runs', 'many']))).toMatch(/^--generate-runs must be a whole number/)
    expect(configErrorOf(() => resolve(['--generate-runs', '1001']))).toMatch(/from 0 to 1000/)
    expect(configErrorOf(() => resolve(['--generate-seed', '1.5']))).toMatch(/^--generate-seed must be a whole number/)
  })

  test("the config file's generate becomes the flags, which a flag on the command line beats", () => {
    const config = { generate: { runs: 5, seed: 9 } }
    expect(applyConfigFile(config, 'c.yaml', 'conformance', {}, []).argv).toEqual([
      '--generate-runs',
      '5',
      '--generate-seed',
      '9',
    ])
    expect(applyConfigFile(config, 'c.yaml', 'conformance', {}, ['--generate-runs', '1']).argv).toEqual([
      '--generate-runs',
      '1',
      '--generate-seed',
      '9',
    ])
    expect(applyConfigFile(config, 'c.yaml', 'load', {}, []).argv).toEqual([])
  })
})
