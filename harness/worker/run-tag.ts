/**
 * The run tag: every resource a conformance run creates on the target carries the run's id, so that a person
 * reading the target's lists knows where it came from, and `npm run conformance -- sweep` can find what a stopped
 * run left behind and delete it without touching anything else.
 *
 * One form everywhere: `gc-<runId>-<label>`, as a filename (files, Part 1 §4.4), a safety_identifier (videos,
 * Part 2 §4.1; responses, Part 1 §4.5) and, where the reference defines metadata (responses §4.5; the planned
 * batches and assistants §4.9), `{ gc_run: <runId> }` besides. Pure functions of the run id: suites pass
 * `runConfig().runId`, the sweep parses what it lists.
 */

export const RUN_TAG = {
  prefix: 'gc-',
  /** The metadata key (at most 64 characters, Part 1 §8.5) that holds the run id. */
  metadataKey: 'gc_run',
  /** safety_identifier of responses holds at most 64 characters (Part 1 §4.5, §8.5); videos allow 256. */
  maxIdentifierChars: 64,
}

/** harness/setup/target.ts newRunId(): UTC start `YYYYMMDD-HHMMSS` and four hex digits. */
const RUN_ID = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-[0-9a-f]{4}$/
const TAGGED = /^gc-(\d{8}-\d{6}-[0-9a-f]{4})-/

export function isRunId(text: string): boolean {
  return RUN_ID.test(text)
}

/** When the run started, read back from its id; undefined when the text is not a run id. */
export function runStartedAt(runId: string): Date | undefined {
  const m = RUN_ID.exec(runId)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number]
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
  // Date.UTC rolls 20261340 over into another month; such a text was never a run id.
  return at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && h < 24 && mi < 60 && s < 60 ? at : undefined
}

/** `gc-<runId>-`: what every tag of the run starts with. */
function runPrefix(runId: string): string {
  return `${RUN_TAG.prefix}${runId}-`
}

/** `gc-<runId>-<label>`, cut to `maxChars` (the label is what gives way; the prefix is always whole). */
export function runTag(runId: string, label: string, maxChars: number = RUN_TAG.maxIdentifierChars): string {
  return `${runPrefix(runId)}${label}`.slice(0, Math.max(maxChars, runPrefix(runId).length))
}

/** A filename for an upload: `gc-<runId>-<label>.<ext>`. */
export function runFileName(runId: string, label: string, ext: string): string {
  return `${runPrefix(runId)}${label}.${ext}`
}

/** Metadata for the endpoints whose reference defines a metadata map (Part 1 §4.5, §4.9). */
export function runMetadata(runId: string): Record<string, string> {
  return { [RUN_TAG.metadataKey]: runId }
}

/**
 * Fields that tag a response that is stored (store left at its default, true, Part 1 §4.5): the reference names
 * no way to delete a stored response, so the tag is what tells whose it is.
 */
export function responseTags(
  runId: string,
  label: string,
): { safety_identifier: string; metadata: Record<string, string> } {
  return { safety_identifier: runTag(runId, label), metadata: runMetadata(runId) }
}

/** The run a filename or safety_identifier names, when it starts with our tag; undefined otherwise. */
export function runIdOf(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined
  const id = TAGGED.exec(text)?.[1]
  return id !== undefined && runStartedAt(id) !== undefined ? id : undefined
}
