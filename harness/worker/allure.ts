/**
 * What a conformance test tells Allure, from inside the test (allure-js-commons' runtime API, which allure-vitest's
 * reporter wires up by adding its setup file to every project it reports on):
 *   epic = the part of the reference, feature = the family, story = the requirement id, severity from the level,
 *   a link to the section, tags for the target and the tiers of the keys used, and on failure the failing exchange
 *   and the curl line that reproduces it.
 * Runs without the Allure reporter (the fault runner, self-tests) say nothing: the runtime API would print a
 * warning for every call there.
 */
import { createHash } from 'node:crypto'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as allure from 'allure-js-commons'
import { BaseMessageTestRuntime, getGlobalTestRuntime } from 'allure-js-commons/sdk/runtime'
import { referenceLink } from '../reference.ts'
import type { Level, Requirement } from '../requirements.ts'
import type { TargetConfig } from '../setup/config.ts'
import { curlLine } from './curl.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import { Redactor } from '../redact.ts'

/** A MUST that fails makes the target non-conformant; a SHOULD that fails is a warning. */
export const SEVERITY: Readonly<Record<Level, string>> = { MUST: 'critical', SHOULD: 'minor' }

function allureActive(): boolean {
  return getGlobalTestRuntime() instanceof BaseMessageTestRuntime
}

/** "embedded" for the reference gateway this run started, else the target's host (never a key: URLs hold none). */
function targetTag(config: Pick<TargetConfig, 'embedded' | 'baseUrl'>): string {
  return `target:${config.embedded ? 'embedded' : new URL(config.baseUrl).host}`
}

/** One tag per tier whose key the test used: "tier:3" for GATEWAY_API_KEY_TIER3, "tier:main" for GATEWAY_API_KEY. */
export function tierTags(exchanges: readonly ExchangeExcerpt[]): string[] {
  const tags = new Set<string>()
  for (const ex of exchanges) {
    if (ex.key === 'main') tags.add('tier:main')
    else if (ex.key?.startsWith('tier')) tags.add(`tier:${ex.key.slice(4)}`)
  }
  return [...tags].sort()
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The test's identity for Allure's history: the suite file relative to the project root and the path of suites
 * to the test, so that trends join runs made from any working folder or checkout (allure-vitest's own id uses
 * the file's path from the working folder).
 */
export function testCaseIdOf(task: { name: string; fullTestName?: string; file: { filepath: string } }): string {
  const file = relative(ROOT, task.file.filepath).split('\\').join('/')
  return createHash('md5')
    .update(`${file} > ${task.fullTestName ?? task.name}`)
    .digest('hex')
}

function labelsOf(req: Requirement): Array<{ name: string; value: string }> {
  return [
    { name: allure.LabelName.EPIC, value: `Part ${req.part}` },
    { name: allure.LabelName.FEATURE, value: req.family },
    { name: allure.LabelName.STORY, value: req.id },
    { name: allure.LabelName.SEVERITY, value: SEVERITY[req.level] },
  ]
}

function descriptionOf(req: Requirement): string {
  const why = req.why ? `\n\nWhy a SHOULD: ${req.why}` : ''
  return `**${req.id}** · ${req.level} · ${referenceLink(req).name}\n\n${req.rule}${why}`
}

/** At the start of a test: everything that does not depend on how it went. */
export async function describeTest(req: Requirement, task: Parameters<typeof testCaseIdOf>[0]): Promise<void> {
  if (!allureActive()) return
  const link = referenceLink(req)
  await allure.testCaseId(testCaseIdOf(task))
  await allure.labels(...labelsOf(req))
  await allure.link(link.url, link.name)
  await allure.description(descriptionOf(req))
}

/** At the end of a test, whatever its outcome: the target and the tiers of the keys it used. */
export async function tagTest(config: TargetConfig, exchanges: readonly ExchangeExcerpt[]): Promise<void> {
  if (!allureActive()) return
  await allure.tags(targetTag(config), ...tierTags(exchanges))
}

let redactor: { keys: TargetConfig['keys']; redactor: Redactor } | undefined

function redactorFor(config: TargetConfig): Redactor {
  if (redactor?.keys !== config.keys) redactor = { keys: config.keys, redactor: new Redactor(config.keys) }
  return redactor.redactor
}

/** What is attached to a failing test: the exchange (JSON) and the curl line, both redacted once more. */
function failureAttachments(
  exchange: ExchangeExcerpt,
  keys: Redactor,
): Array<{ name: string; content: string; contentType: string }> {
  const outcome = exchange.status !== undefined ? String(exchange.status) : 'no response'
  return [
    {
      name: `exchange: ${exchange.method} ${exchange.path} -> ${outcome}`,
      content: keys.text(`${JSON.stringify(exchange, null, 2)}\n`),
      contentType: allure.ContentType.JSON,
    },
    {
      name: 'reproduce with curl',
      content: keys.text(`${curlLine(exchange)}\n`),
      contentType: allure.ContentType.TEXT,
    },
  ]
}

/** In check()'s catch: the evidence of the failure, so that a reader of the report needs nothing else. */
export async function attachFailure(config: TargetConfig, exchange: ExchangeExcerpt | undefined): Promise<void> {
  if (exchange === undefined || !allureActive()) return
  for (const a of failureAttachments(exchange, redactorFor(config)))
    await allure.attachment(a.name, a.content, a.contentType)
}
