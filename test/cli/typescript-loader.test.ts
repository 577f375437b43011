/**
 * The loader every npm script runs through (scripts/typescript/): a .ts entry point runs with its types dropped and
 * the semantics tsconfig.json gives it, JSON imports keep their attributes, and a stack trace names the .ts line.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
import { TYPESCRIPT_LOADER } from '../../scripts/typescript/loader.ts'

const scratch = mkdtempSync(join(tmpdir(), 'gc-loader-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

async function run(
  files: Record<string, string>,
  entry: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(scratch, name), text)
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', TYPESCRIPT_LOADER, entry], {
      cwd: scratch,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('the TypeScript loader', () => {
  test('runs a .ts entry point that imports .ts and JSON modules, with class fields defined as tsc defines them', async () => {
    const result = await run(
      {
        'limits.json': '{ "max": 3 }',
        'store.ts': [
          "import type { Limits } from './types.ts'",
          'export class Store {',
          '  count = 1',
          '  constructor(private readonly limits: Limits) {}',
          '  get room(): number { return this.limits.max - this.count }',
          '}',
        ].join('\n'),
        'types.ts': 'export interface Limits { max: number }',
        'main.ts': [
          "import limits from './limits.json' with { type: 'json' }",
          "import { Store } from './store.ts'",
          'class Base { set value(v: number) { throw new Error(`setter called with ${v}`) } }',
          // useDefineForClassFields (tsconfig target ES2022): a field defines its own property, the setter stays unused.
          'class Child extends Base { value = 2 }',
          'const store: Store = new Store(limits)',
          'console.log(JSON.stringify({ room: store.room, value: new Child().value }))',
        ].join('\n'),
      },
      'main.ts',
    )
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({ room: 2, value: 2 })
  })

  test('a stack trace names the line of the .ts file', async () => {
    const result = await run(
      {
        'boom.ts': [
          'interface Shape { x: number }',
          'const shape: Shape = { x: 1 }',
          'throw new Error(`boom ${shape.x}`)',
        ].join('\n'),
      },
      'boom.ts',
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Error: boom 1')
    expect(result.stderr).toMatch(/boom\.ts:3:\d+/)
  })
})
