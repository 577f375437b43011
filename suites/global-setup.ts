/**
 * For `vitest --project conformance` run directly (without scripts/conformance.ts): resolve the target from the
 * environment and provide it to the suites. Under the script the target is already provided.
 */
import type { TestProject } from 'vitest/node'
import { families } from '../harness/requirements.ts'
import { loadEnv, resolveOptions } from '../harness/setup/config.ts'
import { prepareTarget } from '../harness/setup/target.ts'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (project.getProvidedContext().runConfig !== undefined) return undefined
  const options = resolveOptions(loadEnv(process.env), {}, [], families())
  const target = await prepareTarget(options)
  project.provide('runConfig', target.config)
  return () => target.close()
}
