/**
 * The conformance command's flags and its help text: from the words of the command line to the flag values that
 * harness/setup/config.ts resolves.
 */
import { parseArgs } from 'node:util'
import { ConfigError } from '../errors.ts'
import { families } from '../requirements.ts'
import { CAPABILITIES, type FlagValues } from '../setup/config.ts'

export const USAGE = `Usage: gateway-conformance conformance [options] [file filters]   (npm run conformance -- ...)

Runs the Model Gateway API conformance suites. Without GATEWAY_BASE_URL (or --base-url) the embedded
reference gateway is started on a loopback port and tested.

Options (each overrides the environment variable named):
  --base-url URL          host root of the target, no path            (GATEWAY_BASE_URL)
  --family a,b            run only these families: ${families().join(', ')}
  --models cap=id,...     the target's model per capability, e.g. chat=my-chat,responses=my-chat (GATEWAY_MODELS;
                          default: found by the catalogue's fields): ${CAPABILITIES.join(', ')}
  --names ref=name,...    the target's names for ids the reference neutralised, e.g. vidA-2=my-video,p1-search=web
                          (GATEWAY_NAMES; unnamed ones the target lacks are skipped, naming this variable)
  --grep PATTERN, -t      run only tests whose name matches, e.g. a requirement id prefix such as P1-4.1
  --as-of YYYY-MM-DD      date that date-dependent rules are judged at (GATEWAY_AS_OF; default today, UTC)
  --level must            run only the tests of MUST requirements (SHOULD requirements are disabled)
  --shard i/n             run the i-th of n slices of the suite files; merge the shards' reports with merge
  --baseline FILE         requirements known to fail on this target (JSON); they are reported, not failing the
                          run; a listed requirement that passes is stale and fails the run (exit 1)
  --update-baseline       write FILE from this run: its failing MUSTs, keeping the reasons of listed ones
  --no-rerun              do not run a failed MUST test again at once (by default, a pass then is "flaky")
  --max-duration D        the run's deadline, e.g. 30m or 1h; past it, or after a run of transport failures, the
                          run stops calling: a partial report, exit 2   (GATEWAY_MAX_DURATION; default 30m)
  --report-dir DIR        where reports/<run-id>/ and latest go (default reports)
  --generate-runs N       the generation phase (suites/generated/): N requests of each kind (valid, one stated
                          constraint broken, at an edge) per route, from the request schemas (default 3; 0: off)
  --generate-seed S       its seed: the same seed sends the same requests (default 1)
  --rerun-failed DIR      run again only the requirements that failed or erred in that run's report (a run's
                          folder, or a report folder whose latest is one)
  --config FILE           the config file (default gateway-conformance.yaml here, if any; schemas/config/)
  --list-requirements     print the requirement catalogue and the tests that check each, then exit
  -h, --help              this text

Subcommands:
  merge <dir...>          merge the reports of shards or split runs (npm run conformance -- merge --help)
  sweep                   list, and with --yes delete, what earlier runs left on the target (sweep --help)

Keys come from GATEWAY_API_KEY, GATEWAY_API_KEY_TIER0..5, GATEWAY_SUSPENDED_API_KEY and GATEWAY_API_KEY_SECOND
(a second key of the main key's account), from the environment or .env.
Exit codes: 0 conformant, 1 a MUST requirement failed (beyond the baseline) or a baseline entry is stale,
            2 harness error, bad configuration, or a run stopped by its deadline or an unhealthy target,
            3 no MUST failed but some MUST requirement was skipped (the run is incomplete).
`

export interface Parsed {
  flags: FlagValues
  filters: string[]
  help: boolean
  list: boolean
  rerunFailed: string | undefined
}

export function parseFlags(argv: string[]): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        family: { type: 'string' },
        models: { type: 'string' },
        names: { type: 'string' },
        grep: { type: 'string', short: 't' },
        'as-of': { type: 'string' },
        'report-dir': { type: 'string' },
        level: { type: 'string' },
        shard: { type: 'string' },
        baseline: { type: 'string' },
        'update-baseline': { type: 'boolean' },
        'no-rerun': { type: 'boolean' },
        'max-duration': { type: 'string' },
        'generate-runs': { type: 'string' },
        'generate-seed': { type: 'string' },
        'list-requirements': { type: 'boolean' },
        'rerun-failed': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const { help, 'list-requirements': list, 'rerun-failed': rerunFailed, ...flags } = values
    return { flags, filters: positionals, help: help === true, list: list === true, rerunFailed }
  } catch (error) {
    // node:util words these well ("Unknown option '--x'"); add where to look.
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see npm run conformance -- --help)`)
  }
}
