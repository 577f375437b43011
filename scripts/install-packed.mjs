/**
 * node scripts/install-packed.mjs TARBALL FOLDER [npm ci flags]: installs the packed package into FOLDER with the
 * dependency tree this repository's package-lock.json pins, so that what users run is what the self-tests ran.
 * The container image and the pack self-test install with this same script; the self-test adds --offline and a
 * cache, and needs no network.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const [tarball, folder, ...npmFlags] = process.argv.slice(2)
if (tarball === undefined || folder === undefined) {
  process.stderr.write('usage: node scripts/install-packed.mjs TARBALL FOLDER [npm ci flags]\n')
  process.exit(2)
}
const LOCK = fileURLToPath(new URL('../package-lock.json', import.meta.url))
const lock = JSON.parse(readFileSync(LOCK, 'utf8'))
const bytes = readFileSync(tarball)
// Read the packed package.json from the lockfile's root: the tarball was packed from this tree.
const root = lock.packages['']
const name = lock.name
const file = basename(tarball)
mkdirSync(folder, { recursive: true })
copyFileSync(tarball, join(folder, file))
const spec = `file:${file}`
const packages = {
  '': { name: 'gateway-conformance-install', dependencies: { [name]: spec } },
  [`node_modules/${name}`]: {
    version: lock.version,
    resolved: spec,
    integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    license: root.license,
    dependencies: root.dependencies,
    ...(root.bin ? { bin: root.bin } : {}),
    ...(root.engines ? { engines: root.engines } : {}),
  },
}
// What the package needs at run time: every entry but those only the project's development needs.
for (const [path, entry] of Object.entries(lock.packages)) {
  if (path === '' || entry.dev === true) continue
  packages[path] = entry
}
writeFileSync(join(folder, 'package.json'), `${JSON.stringify(packages[''], null, 2)}\n`)
writeFileSync(
  join(folder, 'package-lock.json'),
  `${JSON.stringify({ name: packages[''].name, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
)
const npm = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', ...npmFlags], {
  cwd: resolve(folder),
  stdio: 'inherit',
})
process.exit(npm.status ?? 2)
