// The cache lives with the session record in the store; this path stays for existing imports.
export { CachedSessionGenerations } from '@agentq/store';
export type { CachedSessionGenerationsOptions } from '@agentq/store';
