/** A failure in one line: its message's first line and where it was thrown, as the load command prints it. */
export function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error).split('\n')[0] as string
  const where = error.stack
    ?.split('\n')
    .find((l) => /^\s+at /.test(l))
    ?.trim()
  return `${error.message.split('\n')[0]}${where ? ` (${where})` : ''}`
}
