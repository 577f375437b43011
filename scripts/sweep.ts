/**
 * node scripts/sweep.ts [--yes] [--keep RUN_ID]... [--older-than 2h] [--base-url URL]
 *
 * The command is harness/command/sweep.ts (what it touches and its exit codes there); this file runs it with the
 * process's arguments.
 */
import { runSweep } from '../harness/command/sweep.ts'

process.exitCode = await runSweep(process.argv.slice(2))
