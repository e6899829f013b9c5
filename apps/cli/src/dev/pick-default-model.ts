/**
 * The model `agentq run` and the demo use when none is named: `AGENTQ_MODEL` when set; otherwise a
 * real provider when its key or base URL is present; otherwise the built-in `scripted:demo`, so
 * that `npm start` works on a fresh machine without any account.
 */
export function pickDefaultModel(env: Record<string, string | undefined>): string {
  if (env.AGENTQ_MODEL) return env.AGENTQ_MODEL;
  if (env.OPENAI_API_KEY) return 'openai:gpt-4o-mini';
  if (env.ANTHROPIC_API_KEY) return 'anthropic:claude-3-5-haiku-latest';
  if (env.OPENAI_COMPATIBLE_BASE_URL) return 'openai-compatible:llama3.1';
  return 'scripted:demo';
}
