/**
 * node scripts/build.mjs [--clean]: the package's JavaScript, written beside each TypeScript file of the code the
 * command runs (npm pack's prepack), since node strips no types under node_modules; --clean removes it
 * again (postpack). The suites stay TypeScript: vitest compiles them itself, and the .js beside them is not used.
 * One file at a time, as tsconfig's isolatedModules promises; relative imports of .ts become .js.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The code the command line reaches: entry points, harness, load, the reference gateway and what they share. */
const DIRS = ['scripts', 'harness', 'load', 'gateway', 'proof', 'common']
/** What tsconfig.json sets that changes the emitted code. */
const TSCONFIG = { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } }
/** `from './x.ts'`, `import('./x.ts')` and `export … from '../x.ts'`: relative specifiers only. */
const RELATIVE_TS = /((?:\bfrom|\bimport)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g

function sources(dir) {
  const out = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

const files = DIRS.flatMap((dir) => sources(join(ROOT, dir)))
if (process.argv.includes('--clean')) {
  for (const file of files) rmSync(file.replace(/\.ts$/, '.js'), { force: true })
} else {
  for (const file of files) {
    const { code } = await transform(readFileSync(file, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      // The oldest Node the package supports (package.json engines).
      target: 'node22.19',
      sourcefile: file,
      tsconfigRaw: TSCONFIG,
    })
    writeFileSync(file.replace(/\.ts$/, '.js'), code.replace(RELATIVE_TS, '$1$2$3.js$2'))
  }
  process.stderr.write(`build: ${files.length} files compiled to JavaScript\n`)
}
