/**
 * The module hooks that let node run the project's TypeScript without a build step: a .ts file of the project is
 * handed to esbuild, which drops the types, and runs as an ES module; everything else loads as node would load it.
 * One file at a time, as vitest and tsc's isolatedModules expect, so no file may depend on another's types at run time.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

/** What tsconfig.json sets that changes the emitted code. */
const TSCONFIG = { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } }

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return next(url, context)
  const path = fileURLToPath(url)
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    // The syntax as written: node runs what tsconfig.json's target allows.
    target: 'esnext',
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw: TSCONFIG,
  })
  return { format: 'module', source: code, shortCircuit: true }
}
