/** The limit tables of the reference, as data under schemas/limits/ (copied exactly from Part 1 §8.1 and §8.4). */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

interface UsageTable {
  windowSeconds: number
  requestsPerMinute: Record<string, number>
}

function load<T>(name: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../schemas/limits/${name}`, import.meta.url)), 'utf8')) as T
}

let usage: UsageTable | undefined

/** Part 1 §8.1: requests per minute on /user/v1 for a tier. */
export function usageLimitPerMinute(tier: number): number | undefined {
  usage ??= load<UsageTable>('usage-rate-limits.json')
  return usage.requestsPerMinute[String(tier)]
}

interface FileTable {
  maxUploadBytes: number
  tiers: Record<
    string,
    { uploadsPerMinute: number; downloadsPerMinute: number; deletesPerMinute: number; maxStorageBytes: number }
  >
}

let files: FileTable | undefined

/** Part 1 §8.4: per-minute file operations and the storage quota (bytes, 1 MB = 10^6) for a tier. */
export function fileLimitsOf(tier: number): FileTable['tiers'][string] | undefined {
  files ??= load<FileTable>('file-limits.json')
  return files.tiers[String(tier)]
}
