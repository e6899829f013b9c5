#!/usr/bin/env node
// The `agentq` executable. agentq's workspaces ship TypeScript sources, so this shim registers
// tsx's loader in this same process (no second Node process, so signals and exit codes are the
// command's own) and then runs src/bin.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/bin.ts');
