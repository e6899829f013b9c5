import { NonRetryableError } from '../errors/non-retryable-error.js';
import type { EgressSecret } from '../net/egress-secret.js';
import type { ServerDefinition, ServerTransport } from '../schemas/server-definition.js';
import { maskSecretValues } from './mask-secret-values.js';
import { hostMatchesPattern, isAllowedSecretName, secretPolicyFromEnv, type SecretPolicy } from './secret-policy.js';

const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A definition with its secrets resolved, plus the resolved values for log redaction. */
export interface ResolvedServerDefinition {
  definition: ServerDefinition;
  /** Every value substituted for a placeholder. Never log, store or enqueue these. */
  secretValues: string[];
  /**
   * The values an HTTP transport sends (in its URL or headers), each with its host binding: pass
   * them to the fetch guard, which drops them on a cross-origin redirect and keeps a bound one on
   * its hosts. Empty for stdio.
   */
  egressSecrets: EgressSecret[];
  /**
   * The OAuth client secret (`auth.clientSecret`) with its host binding: it goes to the
   * authorization server's endpoints, which are only known after discovery, so the OAuth fetch
   * checks each request against it. Present only for a definition with `auth`.
   */
  oauthSecrets?: EgressSecret[];
}

/** Options of {@link resolveSecrets}. */
export interface ResolveSecretsOptions {
  /** @default read from `env` (`AGENTQ_SECRET_NAMES`, `AGENTQ_SECRET_HOSTS`) */
  policy?: SecretPolicy;
}

/**
 * Replaces `${NAME}` placeholders in a definition's transport (args, env, cwd, URL and headers)
 * and its OAuth client (`auth.clientId`, `auth.clientSecret`) with values from `env`. Call it only in the process that connects; never store the result.
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
  const egressSecrets: EgressSecret[] = [];
  const sentToHost = new Set<string>();
  const resolve = (text: string, field: string, toHost = false): string =>
    resolveSecretPlaceholders(text, {
      env,
      policy,
      field,
      subject: `Server ${definition.id}`,
      onResolved: (name, value) => {
        if (toHost) {
          sentToHost.add(name);
          egressSecrets.push(egressSecretOf(name, value, policy));
        }
        secretValues.push(value);
      },
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
  const auth = definition.auth && {
    ...definition.auth,
    clientId: definition.auth.clientId === undefined ? undefined : resolve(definition.auth.clientId, 'auth.clientId'),
    clientSecret:
      definition.auth.clientSecret === undefined
        ? undefined
        : resolve(definition.auth.clientSecret, 'auth.clientSecret'),
  };
  const oauthSecrets = placeholderNamesOf(definition.auth?.clientSecret).map((name) =>
    egressSecretOf(name, env[name] ?? '', policy),
  );
  return {
    definition: auth ? { ...definition, transport, auth } : { ...definition, transport },
    secretValues,
    egressSecrets,
    ...(auth ? { oauthSecrets } : {}),
  };
}

function placeholderNamesOf(text: string | undefined): string[] {
  return text === undefined ? [] : [...text.matchAll(placeholder)].map((match) => match[1] ?? '');
}

function egressSecretOf(name: string, value: string, policy: SecretPolicy): EgressSecret {
  const hosts = policy.hosts.get(name);
  return hosts === undefined ? { value } : { value, hosts };
}

/** Options of {@link resolveSecretPlaceholders}. */
export interface ResolveSecretPlaceholdersOptions {
  env: Record<string, string | undefined>;
  policy: SecretPolicy;
  /** Where the text sits, for messages: `transport.url`, `AGENTQ_BRAVE_API_KEY`. */
  field: string;
  /** Who uses it, for messages: `Server github`, `web_search provider brave`. */
  subject: string;
  /** Told every name resolved and its value (the value is for masking only). */
  onResolved?: (name: string, value: string) => void;
}

/**
 * Replaces every `${NAME}` in `text` with its value from `env`, under the secret policy: a name
 * outside the allow-list fails with `VALIDATION`, an unset one with `SECRET_MISSING`, both naming
 * the variable and the field, never a value.
 */
export function resolveSecretPlaceholders(text: string, options: ResolveSecretPlaceholdersOptions): string {
  return text.replace(placeholder, (_match, name: string) => {
    if (!isAllowedSecretName(name, options.policy)) {
      throw new NonRetryableError({
        code: 'VALIDATION',
        field: options.field,
        message: `${options.subject}: \${${name}} (used in ${options.field}) is not an allowed secret; use AGENTQ_SECRET_* or AGENTQ_SECRET_NAMES`,
      });
    }
    const value = options.env[name];
    if (value === undefined || value === '') {
      throw new NonRetryableError({
        code: 'SECRET_MISSING',
        field: options.field,
        message: `${options.subject}: environment variable ${name} (used in ${options.field}) is not set`,
      });
    }
    options.onResolved?.(name, value);
    return value;
  });
}

/** Options of {@link resolveSecretSetting}. */
export interface ResolveSecretSettingOptions {
  /** The setting as configured, e.g. `${AGENTQ_SECRET_BRAVE_API_KEY}`. */
  value: string;
  /** The setting's variable, for messages, e.g. `AGENTQ_BRAVE_API_KEY`. */
  setting: string;
  /** Who uses it, for messages, e.g. `web_search provider brave`. */
  subject: string;
  /** The host the secret will be sent to; checked against `AGENTQ_SECRET_HOSTS`. */
  host: string;
  env: Record<string, string | undefined>;
  /** @default read from `env` */
  policy?: SecretPolicy;
}

/**
 * Resolves a setting that names a secret as `${NAME}` placeholders (an agentq setting such as a
 * web search provider key) the way a server definition's secrets are resolved: the same allow-list,
 * the same `SECRET_MISSING`, and a secret bound to hosts may only go to one of them
 * (`SECRET_HOST_MISMATCH`). Returns the value and the secrets in it, for masking.
 */
export function resolveSecretSetting(options: ResolveSecretSettingOptions): {
  value: string;
  secretValues: string[];
  /** The same values with their host bindings, for the fetch guard. */
  egressSecrets: EgressSecret[];
} {
  const policy = options.policy ?? secretPolicyFromEnv(options.env);
  const names = new Set<string>();
  const secretValues: string[] = [];
  const egressSecrets: EgressSecret[] = [];
  const value = resolveSecretPlaceholders(options.value, {
    env: options.env,
    policy,
    field: options.setting,
    subject: options.subject,
    onResolved: (name, resolved) => {
      names.add(name);
      secretValues.push(resolved);
      egressSecrets.push(egressSecretOf(name, resolved, policy));
    },
  });
  for (const name of names) {
    const patterns = policy.hosts.get(name);
    if (patterns === undefined || patterns.some((pattern) => hostMatchesPattern(options.host, pattern))) continue;
    throw new NonRetryableError({
      code: 'SECRET_HOST_MISMATCH',
      field: options.setting,
      message: `${options.subject}: secret ${name} may not be sent to ${maskSecretValues(options.host, secretValues)} (AGENTQ_SECRET_HOSTS)`,
    });
  }
  return { value, secretValues, egressSecrets };
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
