import { resolveSecrets, type ServerDefinition } from '@agentq/shared';
import { connectMcpServer, type ConnectMcpServerOptions, type McpConnection } from './connect-mcp-server.js';

/** Options of {@link prepareServerConnection}. */
export interface PrepareServerConnectionOptions {
  /** The definition as stored, its `${NAME}` placeholders unresolved. */
  definition: ServerDefinition;
  /** Where the secrets are read from (the process environment). */
  env: Record<string, string | undefined>;
  /**
   * Told the resolved secret values once, before any connection is opened, so that the process
   * masks them everywhere from then on (logs, tool results, error messages).
   * @default nothing told
   */
  onSecretValues?: (secretValues: string[]) => void;
}

/** What {@link PreparedServerConnection.connect} takes: everything but the resolved definition. */
export type PreparedConnectOptions = Omit<
  ConnectMcpServerOptions,
  'definition' | 'secretValues' | 'egressSecrets' | 'oauthSecrets'
>;

/** A server whose secrets are resolved, ready to connect to. */
export interface PreparedServerConnection {
  /** Every value substituted for a placeholder, to mask out of whatever the server says. Never log these. */
  secretValues: string[];
  /**
   * Opens and initializes a connection with the resolved definition, its secrets masked out of
   * every error and its egress secrets handed to the fetch guard (see `connectMcpServer`).
   */
  connect(options: PreparedConnectOptions): Promise<McpConnection>;
}

/**
 * The one way a process reaches an MCP server from a stored definition: resolve its secrets under
 * this process's policy (`resolveSecrets`, which re-checks the allow-list and host bindings and
 * throws `VALIDATION`, `SECRET_MISSING` or `SECRET_HOST_MISMATCH`), tell the process the values
 * to mask, then connect with them. The connect is a separate call because a caller may need the
 * secret values before it connects (to mask a list read over another session) or may wait for a
 * connection slot in between; it may be called again for a fresh connection.
 */
export function prepareServerConnection(options: PrepareServerConnectionOptions): PreparedServerConnection {
  const resolved = resolveSecrets(options.definition, options.env);
  options.onSecretValues?.(resolved.secretValues);
  return {
    secretValues: resolved.secretValues,
    connect: async (connectOptions) =>
      await connectMcpServer({
        ...connectOptions,
        definition: resolved.definition,
        secretValues: resolved.secretValues,
        egressSecrets: resolved.egressSecrets,
        oauthSecrets: resolved.oauthSecrets,
      }),
  };
}
