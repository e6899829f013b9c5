import { ValidationError, type ValidationIssue } from '../errors/validation-error.js';
import { configVariables } from './config-variables.js';
import { keyPrefix } from '../redis/keys.js';

/** The fully defaulted, validated configuration of an agentq process. */
export interface Config {
  redisUrl: string;
  /** `AGENTQ_PREFIX` as configured. */
  prefix: string;
  /**
   * The prefix every queue and key actually uses: `prefix`, hash-tagged (`{agentq}`) in cluster
   * mode. Pass this to BullMQ and to `keyNames`.
   */
  keyPrefix: string;
  cluster: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  apiToken: string | undefined;
  apiHost: string;
  apiPort: number;
  serversFile: string;
  approvalTimeoutMs: number;
  workerConcurrency: number;
  warmerConcurrency: number;
  watchLeaseMs: number;
  runAttempts: number;
  defaultModel: string;
  openaiCompatibleBaseUrl: string | undefined;
  openaiCompatibleApiKey: string | undefined;
  openaiApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  allowPrivateFetch: boolean;
  /** `AGENTQ_MAX_INPUT_BYTES`: the run spec's input size limit. */
  maxInputBytes: number;
  /** `AGENTQ_MAX_MCP_SERVERS`: the most servers a run spec may name. */
  maxMcpServers: number;
}

/**
 * Reads and validates agentq's configuration from an environment. Every bad variable is reported
 * in one `ValidationError` (code `CONFIG_INVALID`), each named with the reason.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const issues: ValidationIssue[] = [];
  const values: Record<string, unknown> = {};
  for (const variable of configVariables) {
    const raw = env[variable.env];
    const text = raw === undefined || raw === '' ? ('default' in variable ? variable.default : undefined) : raw;
    if (text === undefined) {
      values[variable.key] = undefined;
      continue;
    }
    const parsed = variable.schema.safeParse(text);
    if (parsed.success) values[variable.key] = parsed.data;
    else issues.push({ field: variable.env, message: parsed.error.issues[0]?.message ?? 'invalid' });
  }
  if (issues.length > 0) {
    throw new ValidationError({ what: 'configuration', issues, code: 'CONFIG_INVALID' });
  }
  const config = values as unknown as Omit<Config, 'keyPrefix'>;
  return { ...config, keyPrefix: keyPrefix({ prefix: config.prefix, cluster: config.cluster }) };
}

/** Values of the configuration that are secrets, for log redaction. */
export function secretValuesOf(config: Config): string[] {
  const out: string[] = [];
  for (const variable of configVariables) {
    if (!('secret' in variable) || !variable.secret) continue;
    const value = (config as unknown as Record<string, unknown>)[variable.key];
    if (typeof value === 'string' && value.length >= 6) out.push(value);
  }
  return out;
}
