/** Every file under a folder, at any depth (symbolic links to folders followed, as reports/latest is one). */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}
