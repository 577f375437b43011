/**
 * npm run load -- --profile <name> [options]     runs a load profile
 * npm run load -- --list                          lists the profiles
 * npm run load -- merge <dir> <dir> ...           merges the results of shards
 * npm run load -- compare <baseline> <new>        compares two runs (load/command/compare.ts)
 *
 * The command is load/command/ (its exit codes there); this file runs it with the process's arguments.
 */
import { runLoadCli } from '../load/command/index.ts'

process.exitCode = await runLoadCli(process.argv.slice(2))
