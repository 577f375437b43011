/**
 * The README and the pages under docs/ stay whole: every relative link points at a file that exists and every
 * #anchor at a heading of its page (GitHub's slugs), and every flag a command's --help defines is named on that
 * command's page. Each check is also shown to catch a broken copy.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { COMMANDS, type Command } from '../../scripts/cli.ts'
import { runChild } from '../support/child.ts'
import { limiter, ROOT } from '../support/run-conformance.ts'
import { anchorsOf, helpFlags, linkProblems, linksOf, slug, unnamedFlags } from './docs-checks.ts'

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** The README and every page under docs/, by path from the repository's root. */
const PAGES = new Map(
  [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ]
    .sort()
    .map((path) => [path, read(path)]),
)

/** The page that documents each command's flags; a new command must name its page here. */
const COMMAND_PAGES: Record<Command, string> = {
  conformance: 'docs/configuration.md',
  load: 'docs/load.md',
  gateway: 'docs/reference-gateway.md',
  report: 'docs/reports.md',
  sweep: 'docs/sweep.md',
  merge: 'docs/baselines-and-shards.md',
  compare: 'docs/load.md',
  faults: 'docs/self-tests.md',
  openapi: 'docs/contract.md',
}

const oneAtATime = limiter(2)
/** A test's time includes its wait for a free slot, on a machine other runs may share. */
const TEST_MS = 120_000

function help(command: Command): Promise<string> {
  return oneAtATime(async () => {
    const run = await runChild(process.execPath, [join(ROOT, 'scripts/cli.ts'), command, '--help'], {
      cwd: ROOT,
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_'))),
    })
    expect(run.code, run.stderr).toBe(0)
    return run.stdout
  })
}

describe('anchors and links', () => {
  test("GitHub's slugs", () => {
    expect(slug('What the rate-limit verdicts judge, and why')).toBe('what-the-rate-limit-verdicts-judge-and-why')
    expect(slug('Leftovers: sweep')).toBe('leftovers-sweep')
    expect(slug('The package, the image and the Action')).toBe('the-package-the-image-and-the-action')
    expect(slug('GATEWAY_BASE_URL and `--base-url`')).toBe('gateway_base_url-and---base-url')
    expect([...anchorsOf('# A\n\n```sh\n# not a heading\n```\n\n## B\n\n## B\n')]).toEqual(['a', 'b', 'b-1'])
  })

  test('links outside code, with the line they are on', () => {
    const page =
      'See [one](a.md#x) and `[not](b.md)`,\n[two\nlines](#y).\n\n```sh\n[fenced](c.md)\n```\n\n[ref]: d.md\n'
    expect(linksOf(page)).toEqual([
      { target: 'a.md#x', line: 1 },
      { target: '#y', line: 3 },
      { target: 'd.md', line: 9 },
    ])
  })

  test('every relative link of the README and docs/ points at a file, and every #anchor at a heading', () => {
    expect(PAGES.size).toBeGreaterThan(10)
    expect(linkProblems(PAGES, ROOT)).toEqual([])
  })

  test('a broken link or anchor is caught', () => {
    const broken = new Map(PAGES)
    broken.set(
      'docs/load.md',
      `${PAGES.get('docs/load.md')}\n[gone](no-such-page.md), [lost](configuration.md#no-such-heading), [here](#nowhere), [up](../README.md#set-up-and-runs)\n`,
    )
    const end = (broken.get('docs/load.md') as string).split('\n').length - 1
    expect(linkProblems(broken, ROOT).filter((p) => p.startsWith(`docs/load.md:${end}:`))).toEqual([
      `docs/load.md:${end}: no-such-page.md: no such file`,
      `docs/load.md:${end}: configuration.md#no-such-heading: no heading #no-such-heading in docs/configuration.md`,
      `docs/load.md:${end}: #nowhere: no heading #nowhere in docs/load.md`,
      `docs/load.md:${end}: ../README.md#set-up-and-runs: no heading #set-up-and-runs in README.md`,
    ])
  })
})

describe("each command's flags are named on its page", () => {
  test('the option lines of a help text', () => {
    const text =
      'Usage: x\n  --base-url URL   the target\n  --grep P, -t     tests\n  -h, --help       this\n  sweep   with --yes'
    expect(helpFlags(text)).toEqual(['--base-url', '--grep'])
    expect(unnamedFlags(['--vary', '--real'], 'with `--vary-latency-ms` and `--real`')).toEqual(['--vary'])
  })

  test.concurrent.each(COMMANDS.map((command) => [command, COMMAND_PAGES[command]] as const))(
    'gateway-conformance %s --help: every flag is named in %s',
    async (command, page) => {
      const flags = helpFlags(await help(command))
      expect(flags.length, `${command} --help defines flags`).toBeGreaterThan(0)
      expect(unnamedFlags(flags, PAGES.get(page) ?? ''), `flags of ${command} --help that ${page} never names`).toEqual(
        [],
      )
    },
    TEST_MS,
  )

  test('a flag the page never names is caught', () => {
    const page = (PAGES.get('docs/contract.md') as string).replaceAll('--server', '--serve')
    expect(unnamedFlags(['--output', '--format', '--server'], page)).toEqual(['--server'])
  })
})
