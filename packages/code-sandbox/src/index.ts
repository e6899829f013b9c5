export { createCodeSandbox } from './create-code-sandbox.js';
export type { CodeSandbox, CodeSandboxOptions, CodeSandboxRequest } from './create-code-sandbox.js';
export { runScript } from './run-script.js';
export type { RunScriptOptions, ScriptHost } from './run-script.js';
export { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits.js';
export type { SandboxLimits } from './sandbox-limits.js';
export type { ScriptFailureCode, ScriptOutcome } from './script-outcome.js';
export { loadQuickJs } from './load-quickjs.js';
