/** Small helpers that suites share. */

/** Runs `fn` once and shares the promise: a fixture several tests of a file read, made by whichever runs first. */
export function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => {
    promise ??= fn()
    return promise
  }
}

/** Maps with at most `limit` calls in flight, keeping order: polite to the target, faster than one by one. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next
      next += 1
      results[index] = await fn(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Polls `fn` until it returns a value other than undefined, or the deadline passes (then undefined). */
export async function pollUntil<T>(
  fn: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs: number },
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const value = await fn()
    if (value !== undefined) return value
    if (Date.now() + options.intervalMs > deadline) return undefined
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs))
  }
}

export function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10)
}
