import { runCli } from './run-cli.js';

// `agentq` entry: `apps/cli/bin/agentq.js` loads this through tsx, and so do `npm start` and
// `npm run agentq`. Long-running commands (dev and the roles) return when they are stopped.
const code = await runCli(process.argv);
process.exit(code);
