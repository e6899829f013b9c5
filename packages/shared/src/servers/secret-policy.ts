import { configVariables } from '../config/config-variables.js';
import { AgentqError } from '../errors/agentq-error.js';

/** Prefix of the environment variables a server definition may always name as `${NAME}`. */
export const SECRET_PREFIX = 'AGENTQ_SECRET_';

/**
 * Which `${NAME}` placeholders a server definition may use, and where each secret may be sent.
 * Built from `AGENTQ_SECRET_NAMES` and `AGENTQ_SECRET_HOSTS` by {@link secretPolicyFromEnv}.
 */
export interface SecretPolicy {
  /** Names allowed besides the `AGENTQ_SECRET_` prefix (`AGENTQ_SECRET_NAMES`). */
  names: ReadonlySet<string>;
  /**
   * Full environment name of a bound secret → the host patterns it may be sent to
   * (`AGENTQ_SECRET_HOSTS`). A pattern is a host name or `*.` plus a domain.
   */
  hosts: ReadonlyMap<string, readonly string[]>;
}

// Provider keys (and the key that encrypts OAuth tokens, which shares the secret prefix) are named
// here even though they are in the config table too: removing one from
// the table must never make it resolvable.
const providerKeys = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_COMPATIBLE_API_KEY', 'AGENTQ_SECRET_KEY'];
const settingNames: ReadonlySet<string> = new Set([
  ...configVariables.map((variable) => variable.env),
  ...providerKeys,
]);

/**
 * Whether `name` is one of agentq's own settings or a model provider key: never resolvable in a
 * server definition, whatever the allow-list says. Every `AGENTQ_*` variable outside the
 * `AGENTQ_SECRET_` prefix counts as a setting, so that a future setting is protected by default.
 */
export function isReservedSecretName(name: string): boolean {
  if (settingNames.has(name)) return true;
  return name.startsWith('AGENTQ_') && !name.startsWith(SECRET_PREFIX);
}

/** Whether a definition may name `${name}` under `policy`. */
export function isAllowedSecretName(name: string, policy: SecretPolicy): boolean {
  if (isReservedSecretName(name)) return false;
  return (name.startsWith(SECRET_PREFIX) && name.length > SECRET_PREFIX.length) || policy.names.has(name);
}

// Labels cannot contain a dot, so each dot starts exactly one repetition: no backtracking blow-up.
const hostPattern = /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*$|^\[[0-9a-f:.]+\]$/;

/**
 * Reads the secret policy from an environment (`process.env` at runtime):
 * - `AGENTQ_SECRET_NAMES`: comma-separated extra names a definition may use;
 * - `AGENTQ_SECRET_HOSTS`: `;`-separated `NAME=host[,host…]` bindings. `NAME` is either the full
 *   variable name or the part after `AGENTQ_SECRET_`: `GITHUB_TOKEN=api.github.com` binds
 *   `AGENTQ_SECRET_GITHUB_TOKEN`, and also `GITHUB_TOKEN` itself when that is listed in
 *   `AGENTQ_SECRET_NAMES`. Binding one variable twice is a configuration error, so no binding is
 *   ever silently widened.
 *
 * Throws `CONFIG_INVALID` naming the variable when either is malformed.
 */
export function secretPolicyFromEnv(env: Record<string, string | undefined>): SecretPolicy {
  const names = new Set(splitList(env.AGENTQ_SECRET_NAMES ?? '', ','));
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw configError('AGENTQ_SECRET_NAMES', `"${name}" is not an environment variable name`);
    }
  }
  const hosts = new Map<string, string[]>();
  for (const entry of splitList(env.AGENTQ_SECRET_HOSTS ?? '', ';')) {
    const at = entry.indexOf('=');
    const key = at < 0 ? '' : entry.slice(0, at).trim();
    const patterns = splitList(at < 0 ? '' : entry.slice(at + 1), ',').map((pattern) => pattern.toLowerCase());
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || patterns.length === 0) {
      throw configError('AGENTQ_SECRET_HOSTS', `"${entry}" must look like NAME=host[,host]`);
    }
    for (const pattern of patterns) {
      if (!hostPattern.test(pattern)) {
        throw configError('AGENTQ_SECRET_HOSTS', `"${pattern}" is not a host name or *.domain`);
      }
    }
    const bound = [key.startsWith(SECRET_PREFIX) ? key : `${SECRET_PREFIX}${key}`];
    if (!key.startsWith(SECRET_PREFIX) && names.has(key)) bound.push(key);
    for (const name of bound) {
      if (hosts.has(name)) throw configError('AGENTQ_SECRET_HOSTS', `${name} is bound more than once`);
      hosts.set(name, patterns);
    }
  }
  return { names, hosts };
}

/**
 * Whether `hostname` matches a host pattern: equal (ignoring case), or for `*.example.com` any
 * name that ends in `.example.com` with at least one label before it. Linear in the length of
 * both; no pattern is ever compiled into a regular expression.
 */
export function hostMatchesPattern(hostname: string, pattern: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const wanted = pattern.toLowerCase();
  if (!wanted.startsWith('*.')) return host === wanted;
  const suffix = wanted.slice(1);
  return host.length > suffix.length && host.endsWith(suffix);
}

/** Names of the `${NAME}` placeholders in one string, in order. */
export function placeholderNamesIn(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1] as string);
}

function splitList(text: string, separator: string): string[] {
  return text
    .split(separator)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function configError(field: string, reason: string): AgentqError {
  return new AgentqError({ code: 'CONFIG_INVALID', field, message: `${field}: ${reason}` });
}
