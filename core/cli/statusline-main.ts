// The entry of dist/statusline.cjs: `tuios agent-statusline ...` alone (bin/tuios.cjs picks it).
import { agentStatuslineCommand } from './agent-statusline.js';

// It never throws by design; if it did, the tuios side failing still exits 0.
agentStatuslineCommand(process.argv.slice(3)).catch(() => process.exit(0));
