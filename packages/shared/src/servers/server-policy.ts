import { AgentqError } from '../errors/agentq-error.js';
import { ValidationError, type ValidationIssue } from '../errors/validation-error.js';
import type { ServerDefinition } from '../schemas/server-definition.js';
import {
  hostMatchesPattern,
  isAllowedSecretName,
  placeholderNamesIn,
  secretPolicyFromEnv,
  type SecretPolicy,
} from './secret-policy.js';

/**
 * Where a server definition comes from. `operator` is someone with the deployment's own access:
 * `agentq servers import`, the servers file `agentq dev` imports, `agentq servers add`, or code
 * writing through a {@link ServerStore} directly. `api` is everything else: `PUT /v1/servers/{id}`
 * and the client's `putServer`, which other services call.
 */
export type ServerOrigin = 'api' | 'operator';

/** What the operator lets definitions from the API do. Built by {@link serverPolicyFromEnv}. */
export interface ServerPolicy {
  /** `AGENTQ_ALLOW_STDIO_FROM_API`: any stdio command may come from the API. */
  allowStdioFromApi: boolean;
  /** `AGENTQ_STDIO_COMMANDS`: stdio commands the API may name, compared as whole strings. */
  stdioCommands: ReadonlySet<string>;
  secrets: SecretPolicy;
}

/**
 * Reads the server policy from an environment. The policy is checked where definitions are
 * written: the client reads `process.env` of the process it runs in (or takes a policy), and the
 * API builds its client from its own environment. Set the same variables on every role.
 */
export function serverPolicyFromEnv(env: Record<string, string | undefined>): ServerPolicy {
  const flag = (env.AGENTQ_ALLOW_STDIO_FROM_API ?? '').trim().toLowerCase();
  if (!['', 'true', 'false', '1', '0', 'yes', 'no'].includes(flag)) {
    throw new AgentqError({
      code: 'CONFIG_INVALID',
      field: 'AGENTQ_ALLOW_STDIO_FROM_API',
      message: 'AGENTQ_ALLOW_STDIO_FROM_API must be true or false',
    });
  }
  return {
    allowStdioFromApi: flag === 'true' || flag === '1' || flag === 'yes',
    stdioCommands: new Set(
      (env.AGENTQ_STDIO_COMMANDS ?? '')
        .split(',')
        .map((command) => command.trim())
        .filter((command) => command !== ''),
    ),
    secrets: secretPolicyFromEnv(env),
  };
}

/** The server policy of a loaded configuration (the four policy fields of `Config`). */
export function serverPolicyOf(config: {
  allowStdioFromApi: boolean;
  stdioCommands: string;
  secretNames: string;
  secretHosts: string;
}): ServerPolicy {
  return serverPolicyFromEnv({
    AGENTQ_ALLOW_STDIO_FROM_API: String(config.allowStdioFromApi),
    AGENTQ_STDIO_COMMANDS: config.stdioCommands,
    AGENTQ_SECRET_NAMES: config.secretNames,
    AGENTQ_SECRET_HOSTS: config.secretHosts,
  });
}

/** One `${NAME}` in a definition's transport, with the field it sits in. */
export interface PlaceholderUse {
  name: string;
  field: string;
  /** In an HTTP transport's URL or headers: the value is sent to the URL's host. */
  sentToHost: boolean;
}

/** Every `${NAME}` in the fields {@link resolveSecrets} resolves. */
export function placeholderUses(definition: ServerDefinition): PlaceholderUse[] {
  const uses: PlaceholderUse[] = [];
  const add = (text: string, field: string, sentToHost: boolean) => {
    for (const name of placeholderNamesIn(text)) uses.push({ name, field, sentToHost });
  };
  const transport = definition.transport;
  if (transport.type === 'stdio') {
    transport.args.forEach((arg, index) => add(arg, `transport.args.${index}`, false));
    for (const [key, value] of Object.entries(transport.env)) add(value, `transport.env.${key}`, false);
    if (transport.cwd !== undefined) add(transport.cwd, 'transport.cwd', false);
  } else {
    add(transport.url, 'transport.url', true);
    for (const [key, value] of Object.entries(transport.headers)) add(value, `transport.headers.${key}`, true);
  }
  // Client credentials go to the authorization server, not to the MCP server's host: their host
  // binding is checked against the token endpoint when they are sent.
  if (definition.auth?.clientId !== undefined) add(definition.auth.clientId, 'auth.clientId', false);
  if (definition.auth?.clientSecret !== undefined) add(definition.auth.clientSecret, 'auth.clientSecret', false);
  return uses;
}

/**
 * Checks a definition against the operator's policy before it is stored:
 * - a stdio transport from the `api` origin needs `AGENTQ_ALLOW_STDIO_FROM_API` or its command in
 *   `AGENTQ_STDIO_COMMANDS` (else `FORBIDDEN`, field `transport.command`);
 * - every `${NAME}` must be an allowed secret name (else `VALIDATION` naming it);
 * - from the `api` origin, every secret must be bound to hosts, and when the URL holds no
 *   placeholder its host must match each bound secret sent to it (else `VALIDATION`). Otherwise a
 *   caller could send an allowed secret to a host of its choosing.
 */
export function checkServerDefinition(
  definition: ServerDefinition,
  options: { origin: ServerOrigin; policy: ServerPolicy; fieldPrefix?: string },
): void {
  const { origin, policy } = options;
  const prefix = options.fieldPrefix ?? '';
  const transport = definition.transport;
  if (
    origin === 'api' &&
    transport.type === 'stdio' &&
    !policy.allowStdioFromApi &&
    !policy.stdioCommands.has(transport.command)
  ) {
    throw new AgentqError({
      code: 'FORBIDDEN',
      field: `${prefix}transport.command`,
      message:
        `MCP server ${definition.id}: stdio commands cannot be defined over the API; the operator can ` +
        'import the definition (agentq servers import), list the command in AGENTQ_STDIO_COMMANDS, or set ' +
        'AGENTQ_ALLOW_STDIO_FROM_API=true',
    });
  }
  if (origin === 'api' && transport.type === 'stdio' && !policy.allowStdioFromApi) {
    checkListedCommandEnvironment(definition.id, transport, prefix);
  }
  const issues: ValidationIssue[] = [];
  if (definition.auth && transport.type === 'stdio') {
    issues.push({ field: `${prefix}auth`, message: 'auth applies to HTTP transports only' });
  }
  const host = transport.type === 'stdio' ? undefined : literalHostOf(transport.url);
  for (const use of placeholderUses(definition)) {
    const field = `${prefix}${use.field}`;
    if (!isAllowedSecretName(use.name, policy.secrets)) {
      issues.push({
        field,
        message:
          `\${${use.name}} is not an allowed secret: use AGENTQ_SECRET_* or list it in AGENTQ_SECRET_NAMES ` +
          '(agentq settings and model provider keys never resolve)',
      });
      continue;
    }
    const hosts = policy.secrets.hosts.get(use.name);
    if (origin === 'api' && hosts === undefined) {
      issues.push({
        field,
        message: `\${${use.name}} is not bound to hosts (AGENTQ_SECRET_HOSTS); definitions from the API may use only bound secrets`,
      });
      continue;
    }
    if (hosts !== undefined && use.sentToHost && host !== undefined) {
      if (!hosts.some((pattern) => hostMatchesPattern(host, pattern))) {
        issues.push({ field, message: `\${${use.name}} may not be sent to ${host} (AGENTQ_SECRET_HOSTS)` });
      }
    }
  }
  if (issues.length > 0) throw new ValidationError({ what: `server definition ${definition.id}`, issues });
}

const SINGLE_PLACEHOLDER = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * A command listed in `AGENTQ_STDIO_COMMANDS` lets API callers choose its arguments, not the
 * process it becomes. A caller-chosen environment would: `NODE_OPTIONS`, `LD_PRELOAD`, `PATH`,
 * `PYTHONSTARTUP`, an npm registry setting and their many kin turn any program into a runner of
 * the caller's code, and a working directory chooses the config files a program reads. No list of
 * such variables is ever complete, so the rule is the other way round: over the API, a listed
 * command's `env` values may only be a single `${SECRET}` placeholder (a value the operator wrote,
 * already checked to be an allowed, host-bound secret), and `cwd` is refused. The operator's own
 * paths (import, `AGENTQ_ALLOW_STDIO_FROM_API=true`) may set both.
 */
function checkListedCommandEnvironment(
  serverId: string,
  transport: Extract<ServerDefinition['transport'], { type: 'stdio' }>,
  prefix: string,
): void {
  const refuse = (field: string, what: string) => {
    throw new AgentqError({
      code: 'FORBIDDEN',
      field: `${prefix}${field}`,
      message:
        `MCP server ${serverId}: ${what}. Over the API, a command listed in AGENTQ_STDIO_COMMANDS takes ` +
        'arguments and ${SECRET} placeholders in env only, since an environment variable or working ' +
        'directory chosen by the caller can make any program run other code; the operator can import the ' +
        'definition (agentq servers import) or set AGENTQ_ALLOW_STDIO_FROM_API=true',
    });
  };
  if (transport.cwd !== undefined) refuse('transport.cwd', 'cwd cannot be set');
  for (const [key, value] of Object.entries(transport.env)) {
    if (!SINGLE_PLACEHOLDER.test(value)) {
      refuse(`transport.env.${key}`, `env ${key} must be a single \${NAME} secret placeholder`);
    }
  }
}

/**
 * The host of a URL that may hold placeholders, when the host itself holds none (a placeholder in
 * the path or query does not change where the request goes). `undefined` when unknown until the
 * URL is resolved; the check at connect covers that case.
 */
function literalHostOf(url: string): string | undefined {
  const authority = url.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('${')) return undefined;
  try {
    return new URL(url.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x')).hostname;
  } catch {
    return undefined;
  }
}
