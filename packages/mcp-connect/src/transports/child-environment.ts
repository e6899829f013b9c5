import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The environment of a stdio server's child process: the SDK's small safe default (`PATH`,
 * `HOME`, `USER`, `SHELL`, `TERM`, … ; never the parent's secrets) with the definition's resolved
 * `env` on top.
 *
 * The warmer passed only the definition's `env` and relied on the SDK to add the defaults; the
 * worker merged them itself. Merging here, explicitly, gives both roles the same child whatever
 * the SDK version does with a partial `env`, and keeps the parent's other variables (for example
 * `AGENTQ_*` or a provider API key) out of third-party servers.
 */
export function childEnvironment(definitionEnv: Record<string, string>): Record<string, string> {
  return { ...getDefaultEnvironment(), ...definitionEnv };
}
