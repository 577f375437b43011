/**
 * Every profile by name: `npm run load -- --list` prints this; a --profile that names a file is read from it.
 * Each module of this folder lists its own profiles and where --list shows them (its `PROFILES`, profile.ts
 * ProfileListing); this file finds the modules by reading the folder, so a new profile is a new module and no more.
 */
import { readdirSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Profile, ProfileListing } from './profile.ts'
import { isProfileFile } from '../workload.ts'
import { profileFromFile } from './workload-files.ts'

const HERE = new URL('.', import.meta.url)
/** TypeScript in a clone, the JavaScript scripts/build.mjs writes beside it in the packed package: as this file is. */
const KIND = import.meta.url.endsWith('.ts') ? '.ts' : '.js'

/** The listings of every other module of this folder, in the order of the modules' names. */
async function listings(): Promise<ProfileListing[]> {
  const self = basename(fileURLToPath(import.meta.url))
  const modules = readdirSync(fileURLToPath(HERE))
    .filter((file) => file.endsWith(KIND) && file !== self)
    .sort()
  const found = await Promise.all(
    modules.map(async (file) => (await import(new URL(file, HERE).href)) as { PROFILES?: ProfileListing[] }),
  )
  return found.flatMap((module) => module.PROFILES ?? [])
}

// A stable sort: listings of one order keep the order of their modules' names.
const LISTINGS = (await listings()).sort((a, b) => a.order - b.order)

export function allProfiles(): Profile[] {
  return LISTINGS.flatMap((listing) => listing.make())
}

/** A built-in profile by name, or a workload file (a value with a slash, or ending in .json, .yaml or .yml). */
export function profileNamed(name: string): Profile | undefined {
  if (isProfileFile(name)) return profileFromFile(name)
  return allProfiles().find((p) => p.name === name)
}
