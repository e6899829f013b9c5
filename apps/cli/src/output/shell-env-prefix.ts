import { maskRedisUrl } from '@agentq/shared';

/**
 * The environment to put before a suggested command so that it reaches the same deployment:
 * `REDIS_URL=… AGENTQ_PREFIX=… ` when they differ from the defaults, else nothing. A password in
 * the URL is masked: the terminal is no place for it, and the operator knows where it came from.
 */
export function shellEnvPrefix(options: { redisUrl: string; prefix: string }): string {
  const parts: string[] = [];
  if (options.redisUrl !== 'redis://127.0.0.1:6379') parts.push(`REDIS_URL=${maskRedisUrl(options.redisUrl)}`);
  if (options.prefix !== 'agentq') parts.push(`AGENTQ_PREFIX=${options.prefix}`);
  return parts.length > 0 ? `${parts.join(' ')} ` : '';
}
