/**
 * npm run conformance [-- flags] [vitest file filters]          runs the conformance suites
 * npm run conformance -- merge <dir...>                          merges the reports of shards or split runs
 * npm run conformance -- sweep [--yes]                           lists, and deletes, what earlier runs left
 *
 * The command is harness/command/conformance.ts (its exit codes there); this file runs it with the process's
 * arguments, as the self-tests start it.
 */
import { conformanceCommand } from '../harness/command/conformance.ts'

process.exitCode = await conformanceCommand(process.argv.slice(2))
