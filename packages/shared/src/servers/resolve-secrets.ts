import { NonRetryableError } from '../errors/non-retryable-error.js';
import type { ServerDefinition, ServerTransport } from '../schemas/server-definition.js';
import { maskSecretValues } from './mask-secret-values.js';
import { hostMatchesPattern, isAllowedSecretName, secretPolicyFromEnv, type SecretPolicy } from './secret-policy.js';

const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A definition with its secrets resolved, plus the resolved values for log redaction. */
export interface ResolvedServerDefinition {
  definition: ServerDefinition;
  /** Every value substituted for a placeholder. Never log, store or enqueue these. */
  secretValues: string[];
}

/** Options of {@link resolveSecrets}. */
export interface ResolveSecretsOptions {
  /** @default read from `env` (`AGENTQ_SECRET_NAMES`, `AGENTQ_SECRET_HOSTS`) */
  policy?: SecretPolicy;
}

/**
 * Replaces `${NAME}` placeholders in a definition's transport (args, env, cwd, URL and headers)
 * with values from `env`. Call it only in the process that connects; never store the result.
 *
 * The definition was checked when it was stored, and is checked again here because the policy of
 * this process is the one that counts:
 * - a name outside the allow-list (`AGENTQ_SECRET_*`, `AGENTQ_SECRET_NAMES`; never agentq's own
 *   settings or provider keys) fails with `VALIDATION`, naming it;
 * - a missing variable fails with `SECRET_MISSING`, naming the variable, server and field;
 * - a secret bound to hosts (`AGENTQ_SECRET_HOSTS`) in an HTTP transport's URL or headers fails with
 *   `SECRET_HOST_MISMATCH`, naming the secret and the host, when the URL's host is not one of them.
 */
export function resolveSecrets(
  definition: ServerDefinition,
  env: Record<string, string | undefined> = process.env,
  options: ResolveSecretsOptions = {},
): ResolvedServerDefinition {
  const policy = options.policy ?? secretPolicyFromEnv(env);
  const secretValues: string[] = [];
  const sentToHost = new Set<string>();
  const resolve = (text: string, field: string, toHost = false): string =>
    text.replace(placeholder, (_match, name: string) => {
      if (!isAllowedSecretName(name, policy)) {
        throw new NonRetryableError({
          code: 'VALIDATION',
          field,
          message: `Server ${definition.id}: \${${name}} (used in ${field}) is not an allowed secret; use AGENTQ_SECRET_* or AGENTQ_SECRET_NAMES`,
        });
      }
      const value = env[name];
      if (value === undefined || value === '') {
        throw new NonRetryableError({
          code: 'SECRET_MISSING',
          field,
          message: `Server ${definition.id}: environment variable ${name} (used in ${field}) is not set`,
        });
      }
      if (toHost) sentToHost.add(name);
      secretValues.push(value);
      return value;
    });
  const resolveMap = (map: Record<string, string>, field: string, toHost = false) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, resolve(value, `${field}.${key}`, toHost)]));

  let transport: ServerTransport;
  if (definition.transport.type === 'stdio') {
    // A stdio command runs on the operator's trust (imported, or allow-listed for the API); where
    // it sends a secret cannot be checked from here.
    transport = {
      ...definition.transport,
      args: definition.transport.args.map((arg, index) => resolve(arg, `transport.args.${index}`)),
      env: resolveMap(definition.transport.env, 'transport.env'),
      cwd: definition.transport.cwd === undefined ? undefined : resolve(definition.transport.cwd, 'transport.cwd'),
    };
  } else {
    transport = {
      ...definition.transport,
      url: resolve(definition.transport.url, 'transport.url', true),
      headers: resolveMap(definition.transport.headers, 'transport.headers', true),
    };
    checkBoundHosts({ serverId: definition.id, url: transport.url, names: sentToHost, policy, secretValues });
  }
  return { definition: { ...definition, transport }, secretValues };
}

function checkBoundHosts(input: {
  serverId: string;
  url: string;
  names: ReadonlySet<string>;
  policy: SecretPolicy;
  secretValues: readonly string[];
}): void {
  let host: string | undefined;
  try {
    host = new URL(input.url).hostname;
  } catch {
    host = undefined;
  }
  for (const name of input.names) {
    const patterns = input.policy.hosts.get(name);
    if (patterns === undefined) continue;
    if (host !== undefined && patterns.some((pattern) => hostMatchesPattern(host, pattern))) continue;
    // A placeholder may sit in the host itself: the host named in the error is masked too, since
    // the caller has not learned these values yet and cannot mask them.
    const shown = host === undefined ? 'an unparsable URL' : maskSecretValues(host, input.secretValues);
    throw new NonRetryableError({
      code: 'SECRET_HOST_MISMATCH',
      field: 'transport.url',
      message: `Server ${input.serverId}: secret ${name} may not be sent to ${shown} (AGENTQ_SECRET_HOSTS)`,
    });
  }
}
