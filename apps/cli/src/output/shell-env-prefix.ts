import { apiBaseUrlOf, maskRedisUrl, type Config } from '@agentq/shared';
import { cliInvocation } from './cli-invocation.js';

/** Where `agentq dev` serves the API by default: a suggested command needs no `AGENTQ_API_URL` then. */
const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/**
 * The environment to put before a suggested command so that it reaches the same deployment:
 * `AGENTQ_API_URL=… REDIS_URL=… AGENTQ_PREFIX=… ` for those that differ from the defaults (the API
 * URL only when given), else nothing. A password in the URL is masked: the terminal is no place for
 * it, and the operator knows where it came from.
 */
export function shellEnvPrefix(options: { redisUrl: string; prefix: string; apiUrl?: string }): string {
  const parts: string[] = [];
  if (options.apiUrl !== undefined && options.apiUrl !== DEFAULT_API_URL)
    parts.push(`AGENTQ_API_URL=${options.apiUrl}`);
  if (options.redisUrl !== 'redis://127.0.0.1:6379') parts.push(`REDIS_URL=${maskRedisUrl(options.redisUrl)}`);
  if (options.prefix !== 'agentq') parts.push(`AGENTQ_PREFIX=${options.prefix}`);
  return parts.length > 0 ? `${parts.join(' ')} ` : '';
}

/**
 * How to run `agentq` against this configuration in a command the CLI suggests: the environment
 * that differs from the defaults (Redis, prefix, API URL), then the invocation that started this
 * process (see `cliInvocation`), for example `REDIS_URL=redis://127.0.0.1:41234 npm run agentq --`.
 */
export function suggestedAgentq(
  config: Pick<Config, 'redisUrl' | 'prefix' | 'apiUrl' | 'apiHost' | 'apiPort'>,
  env: Record<string, string | undefined>,
): string {
  return `${shellEnvPrefix({ redisUrl: config.redisUrl, prefix: config.prefix, apiUrl: apiBaseUrlOf(config) })}${cliInvocation(env)}`;
}
