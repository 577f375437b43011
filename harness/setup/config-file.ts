/**
 * The config file (gateway-conformance.yaml, or --config FILE): the settings of a run in one reviewed file,
 * checked against schemas/config/config.schema.json. It feeds the routes that already exist: what the environment
 * would say becomes a variable (unless the environment or .env says it), what only a flag says becomes a flag
 * (unless the command line gives it). So flags beat the environment, which beats the file.
 * Keys are only ever `${NAME}` references: a file is committed, a key must not be.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import { parse as parseYaml } from 'yaml'
import schema from '../../schemas/config/config.schema.json' with { type: 'json' }
import type { Env } from './config.ts'
import { KEY_ENV, KEY_SLOTS, type KeySlot } from '../keys.ts'
import { parseDurationMs } from '../duration.ts'
import { ConfigError } from '../errors.ts'

export const DEFAULT_CONFIG_FILE = 'gateway-conformance.yaml'

export interface ConfigFile {
  target?: string
  keys?: Partial<Record<KeySlot, string>>
  models?: Record<string, string>
  names?: Record<string, string>
  nativeKeyHeader?: string
  families?: string[]
  level?: 'must' | 'all'
  asOf?: string
  budgetUsd?: number
  timeoutMs?: number
  deadline?: string
  minuteMs?: number
  baseline?: string
  reportDir?: string
  load?: { profile?: string; objectives?: Record<string, string | number>; tier?: number }
  generate?: { runs?: number; seed?: number }
}

/** What a config file adds to a command: environment variables and flags, each only where nothing else set it. */
export interface Applied {
  env: Env
  argv: string[]
}

const ENV_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/

const validate = new Ajv2020({ allErrors: true, strict: false }).compile<ConfigFile>(schema)

function describeAllowed(error: ErrorObject): string {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues
  return allowed ? `; choose from ${allowed.join(', ')}` : ''
}

/** One line per mistake: the file, the JSON pointer, what to fix. A key's value is never part of it. */
function describe(file: string, error: ErrorObject): string {
  const pointer = error.instancePath === '' ? '/' : error.instancePath
  if (error.instancePath.startsWith('/keys/') && error.keyword === 'pattern')
    return `${file} ${pointer}: a key is given as a reference to the environment variable that holds it, e.g. \${GATEWAY_API_KEY}; move the key itself out of the file`
  if (error.keyword === 'additionalProperties') {
    const name = (error.params as { additionalProperty: string }).additionalProperty
    return `${file} ${pointer}: "${name}" is not a setting here; see schemas/config/config.schema.json`
  }
  const name = (error as ErrorObject & { propertyName?: string }).propertyName
  if (name !== undefined) return `${file} ${pointer}/${name}: not a name this setting takes${describeAllowed(error)}`
  if (error.keyword === 'enum') {
    return `${file} ${pointer}: not allowed${describeAllowed(error)}`
  }
  return `${file} ${pointer}: ${error.message ?? 'invalid'}`
}

/** Reads and checks the file; every mistake is a ConfigError (exit 2) naming the file and the JSON pointer. */
export function readConfigFile(path: string, shownAs: string = path): ConfigFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(
      `cannot read the config file ${shownAs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  let data: unknown
  try {
    data = parseYaml(text)
  } catch (error) {
    // yaml's first line names the problem and where: "... at line 2, column 1:".
    throw new ConfigError(`${shownAs}: not YAML: ${(error as Error).message.split('\n')[0]?.replace(/:$/, '')}`)
  }
  if (data === null || data === undefined) return {}
  if (!validate(data)) {
    // Unknown keys and the first of each place: one line to act on, the rest follow once it is fixed.
    const first = (validate.errors ?? []).find((e) => e.keyword !== 'if') as ErrorObject
    throw new ConfigError(describe(shownAs, first))
  }
  if (data.deadline !== undefined && parseDurationMs(data.deadline) === undefined)
    throw new ConfigError(`${shownAs} /deadline: "${data.deadline}" is not a duration; write e.g. 30m, 90s or 1h30m`)
  return data
}

function pairs(map: Record<string, string | number>): string {
  return Object.entries(map)
    .map(([name, value]) => `${name}=${value}`)
    .join(',')
}

/** The flags a command line already gives, by name (`--x` and `--x=v`). */
function given(argv: readonly string[], flag: string): boolean {
  return argv.some((arg) => arg === flag || arg.startsWith(`${flag}=`))
}

/**
 * The file's settings as environment variables and flags of `command`, where `env` (the environment with .env) and
 * `argv` do not already set them. Paths in the file are relative to the file.
 */
export function applyConfigFile(
  config: ConfigFile,
  file: string,
  command: string,
  env: Env,
  argv: string[],
  knownFamilies?: readonly string[],
): Applied {
  // `conformance sweep` and `load compare` are the sweep and compare commands.
  if ((command === 'conformance' || command === 'load') && ['sweep', 'merge', 'compare'].includes(argv[0] ?? ''))
    command = argv[0] as string
  const out: Env = {}
  const unset = (name: string): boolean => env[name] === undefined || env[name]?.trim() === ''
  const setEnv = (name: string, value: string | number | undefined): void => {
    if (value !== undefined && unset(name)) out[name] = String(value)
  }
  setEnv('GATEWAY_BASE_URL', config.target?.replace(/\/$/, ''))
  for (const slot of KEY_SLOTS) {
    const ref = config.keys?.[slot]
    if (ref === undefined) continue
    const name = ENV_REF.exec(ref)?.[1] as string
    const value = env[name]?.trim() || undefined
    // A target without the main key can test nothing; a tier's missing secret only skips that tier, as it would unset.
    const remote = config.target !== undefined || !unset('GATEWAY_BASE_URL')
    if (slot === 'main' && remote && value === undefined && unset(KEY_ENV.main))
      throw new ConfigError(`${file} /keys/main: \${${name}} is not set; set ${name} in the environment or in .env`)
    // A reference to the slot's own variable adds nothing.
    if (name !== KEY_ENV[slot]) setEnv(KEY_ENV[slot], value)
  }
  if (config.models) setEnv('GATEWAY_MODELS', pairs(config.models))
  if (config.names) setEnv('GATEWAY_NAMES', pairs(config.names))
  setEnv('GATEWAY_NATIVE_KEY_HEADER', config.nativeKeyHeader)
  setEnv('GATEWAY_AS_OF', config.asOf)
  setEnv('GATEWAY_BUDGET_USD', config.budgetUsd)
  setEnv('GATEWAY_TIMEOUT_MS', config.timeoutMs)
  setEnv('GATEWAY_MAX_DURATION', config.deadline)
  setEnv('GATEWAY_MINUTE_MS', config.minuteMs)

  config.families?.forEach((family, index) => {
    if (knownFamilies !== undefined && !knownFamilies.includes(family))
      throw new ConfigError(
        `${file} /families/${index}: no family "${family}"; choose from ${knownFamilies.join(', ')}`,
      )
  })
  const here = dirname(resolve(file))
  const flags: string[] = []
  const flag = (name: string, value: string | number | undefined, commands: readonly string[]): void => {
    if (value !== undefined && commands.includes(command) && !given(argv, name)) flags.push(name, String(value))
  }
  // --rerun-failed chooses its own families: the file's selection would stand in its way.
  if (!given(argv, '--rerun-failed')) flag('--family', config.families?.join(','), ['conformance'])
  flag('--level', config.level, ['conformance'])
  flag('--generate-runs', config.generate?.runs, ['conformance'])
  flag('--generate-seed', config.generate?.seed, ['conformance'])
  flag('--baseline', config.baseline === undefined ? undefined : resolve(here, config.baseline), ['conformance'])
  flag('--report-dir', config.reportDir === undefined ? undefined : resolve(here, config.reportDir), [
    'conformance',
    'load',
    'merge',
  ])
  const profile = config.load?.profile
  // A workload file is a path; a profile name is not.
  const profileArg = profile !== undefined && /\.(json|ya?ml)$/.test(profile) ? resolve(here, profile) : profile
  flag('--profile', profileArg, ['load'])
  flag('--slo', config.load?.objectives ? pairs(config.load.objectives) : undefined, ['load'])
  flag('--tier', config.load?.tier, ['load'])
  // After what was typed: a subcommand word or a file filter keeps its place.
  return { env: out, argv: [...argv, ...flags] }
}
