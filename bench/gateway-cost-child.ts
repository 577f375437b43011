/**
 * The gateway cost benchmark's own process (spawned by its path from gateway-cost.ts): measured after other parts in
 * the bench's process, both sides ran a third slower and the ratio swung, so it gets a fresh heap and JIT. Prints
 * its row as JSON on stdout.
 */
import { gatewayCost } from './gateway-cost.ts'

const row = await gatewayCost(JSON.parse(process.argv[2] ?? '{}'))
process.stdout.write(JSON.stringify(row))
process.exit(0)
