/** What a bad configuration tells the user: a ConfigError of exactly one line (exit 2 with one line). */
import { expect } from 'vitest'
import { ConfigError } from '../../harness/errors.ts'

/** The message of the ConfigError that `fn` throws; fails the test when it throws none, another error, or many lines. */
export function configErrorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message.split('\n')).toHaveLength(1)
    return message
  }
  throw new Error('expected a ConfigError')
}
