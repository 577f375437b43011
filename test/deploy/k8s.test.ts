/**
 * The Kubernetes recipe of docs/load.md (deploy/k8s/): an Indexed Job whose pods each run one shard of a load profile
 * onto a shared volume, and a Job that merges them. Parsed as YAML; every command it calls must parse with today's
 * load command line (flags that exist, the shard form accepted, a profile that exists), each index must map to a
 * distinct shard I of N with N the Job's completions, and the merge must read exactly the directories the shards
 * write.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { profileNamed } from '../../load/profiles/index.ts'
import { parseShard } from '../../harness/setup/config.ts'
import { parseFlags } from '../../load/command/flags.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface Container {
  image: string
  command: string[]
  volumeMounts?: { name: string; mountPath: string }[]
}
interface JobSpec {
  completionMode?: string
  completions?: number
  parallelism?: number
  template: {
    spec: { containers: Container[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] }
  }
}
interface Doc {
  kind: string
  metadata: { name: string }
  spec: JobSpec & Record<string, unknown>
}

function docs(file: string): Doc[] {
  const parsed = parseAllDocuments(readFileSync(`${ROOT}/deploy/k8s/${file}`, 'utf8'))
  for (const d of parsed) expect(d.errors, `${file}: ${d.errors.join('; ')}`).toEqual([])
  return parsed.map((d) => d.toJSON() as Doc)
}

const shards = docs('load-indexed-job.yaml')
const merges = docs('load-merge-job.yaml')
const job = shards.find((d) => d.kind === 'Job') as Doc
const mergeJob = merges.find((d) => d.kind === 'Job') as Doc
const claim = shards.find((d) => d.kind === 'PersistentVolumeClaim') as Doc

/** The command line a shard's shell runs for one completion index, as words (the script uses no quoting). */
function shardArgs(index: number): string[] {
  const [shell, flag, script] = (job.spec.template.spec.containers[0] as Container).command
  expect([shell, flag]).toEqual(['sh', '-c'])
  const line = (script as string)
    .replaceAll('$((JOB_COMPLETION_INDEX + 1))', String(index + 1))
    .replaceAll('$JOB_COMPLETION_INDEX', String(index))
  expect(line, 'the script uses no other expansion').not.toMatch(/\$/)
  const words = line.trim().split(/\s+/)
  expect(words.slice(0, 3)).toEqual(['exec', 'gateway-conformance', 'load'])
  return words.slice(3)
}

describe('the Indexed Job of shards', () => {
  const n = job.spec.completions as number

  test('is indexed, runs every shard at once, on one shared volume', () => {
    expect(job.spec.completionMode).toBe('Indexed')
    expect(n).toBeGreaterThan(1)
    expect(job.spec.parallelism).toBe(n)
    const pod = job.spec.template.spec
    expect(pod.volumes?.[0]?.persistentVolumeClaim?.claimName).toBe(claim.metadata.name)
    expect(mergeJob.spec.template.spec.volumes?.[0]?.persistentVolumeClaim?.claimName).toBe(claim.metadata.name)
    expect((claim.spec as unknown as { accessModes: string[] }).accessModes).toContain('ReadWriteMany')
  })

  test.each(Array.from({ length: job.spec.completions as number }, (_, i) => i))(
    'index %i runs a load command that parses: an existing profile, shard index+1 of the completions',
    (index) => {
      const { flags, positionals } = parseFlags(shardArgs(index))
      expect(positionals).toEqual([])
      expect(flags.profile !== undefined && profileNamed(flags.profile)).toBeTruthy()
      expect(profileNamed(flags.profile as string)?.search, 'a search cannot be sharded').toBeUndefined()
      expect(parseShard(flags.shard as string)).toEqual({ index: index + 1, count: n })
      expect(flags['report-dir']).toBe(`/reports/${index}`)
      expect(flags['confirm-target']).toBe('staging.example.com')
    },
  )
})

describe('the merge', () => {
  test('runs the load merge command over exactly the directories the shards write', () => {
    const container = mergeJob.spec.template.spec.containers[0] as Container
    expect(container.image).toBe((job.spec.template.spec.containers[0] as Container).image)
    const [bin, command, ...rest] = container.command
    expect([bin, command]).toEqual(['gateway-conformance', 'load'])
    const { flags, positionals } = parseFlags(rest)
    expect(positionals[0]).toBe('merge')
    const written = Array.from({ length: job.spec.completions as number }, (_, i) => {
      const { flags: shard } = parseFlags(shardArgs(i))
      return `${shard['report-dir']}/load/latest`
    })
    expect(positionals.slice(1)).toEqual(written)
    expect(flags['report-dir']).toMatch(/^\/reports\//)
  })
})
