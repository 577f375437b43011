/**
 * `node scripts/gateway.ts [options]`: the gateway command run directly, with no npm in between (the bench and the
 * self-tests spawn it so, to own the pid they signal); the command is gateway/command.ts.
 */
import { gatewayCommand } from '../gateway/command.ts'

const code = await gatewayCommand(process.argv.slice(2))
if (code !== undefined) process.exitCode = code
