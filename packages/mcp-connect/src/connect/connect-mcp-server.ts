import {
  AgentqError,
  capResponseBody,
  checkFetchTarget,
  createGuardedFetch,
  maskSecretValues,
  maskServerError,
  NonRetryableError,
  type EgressSecret,
  type ElicitationResponse,
  type Logger,
  type ServerDefinition,
  type ServerTransport,
} from '@agentq/shared';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import {
  answerElicitation,
  type ElicitationAnswer,
  type ElicitationRequest,
} from '../elicitation/answer-elicitation.js';
import { httpUrlOf, oauthFetchOf } from '../auth/authorize-server.js';
import { McpOAuthProvider } from '../auth/mcp-oauth-provider.js';
import type { OAuthTokenStore } from '@agentq/store';
import { classifySdkError, messageOf } from '../errors/describe-sdk-error.js';
import { authFailureOf, recordAuthRefusals, type AuthRefusalRecorder } from '../errors/auth-refusal.js';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { capMessageBytes, type MessageByteLimit } from './cap-message-bytes.js';
import { MCP_ERROR_CODES } from '../errors/mcp-error-codes.js';
import { openTransport as openSdkTransport } from '../transports/open-transport.js';
import { StderrCapture } from '../transports/stderr-capture.js';
import { shouldFallBackToSse } from './should-fall-back-to-sse.js';
import { WarningThrottle } from './warning-throttle.js';

/** The kind of transport a connection actually uses. */
export type McpTransportKind = ServerTransport['type'];

/** An initialized MCP client connection. */
export interface McpConnection {
  client: Client;
  capabilities: ServerCapabilities | undefined;
  /** The transport actually used: `sse` when a Streamable HTTP server fell back. */
  transport: McpTransportKind;
  /** The last of a stdio server's stderr (bounded); empty for HTTP servers. */
  stderrTail(): string;
  /** Closes the client; for stdio this ends (and if needed kills) the child process. Never throws. */
  close(): Promise<void>;
}

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpServerOptions {
  /** A definition whose `${ENV}` secrets are already resolved. */
  definition: ServerDefinition;
  logger: Logger;
  /** The values substituted for the definition's secrets, masked out of every error thrown. @default [] */
  secretValues?: readonly string[];
  /**
   * The secrets the HTTP transport sends, with their host bindings (`resolveSecrets`'
   * `egressSecrets`): the guarded fetch drops every header carrying one on a cross-origin redirect
   * and never sends a bound one to another host.
   * @default every value of `secretValues`, unbound
   */
  egressSecrets?: readonly EgressSecret[];
  /**
   * Most bytes of an HTTP error answer the transports read (they quote it in their errors); the
   * rest is never read. Answers that succeed are capped by `messageLimit` only.
   * @default 8192
   */
  errorBodyMaxBytes?: number;
  /**
   * Most bytes of one message a server sends (over HTTP a JSON answer or one event of an event
   * stream, over stdio one line), and the error past it: the read stops there and the connection
   * closes, so a huge answer is refused while it is read, never buffered whole. The warmer caps its
   * `tools/list` reads with it, the worker its tool calls.
   * @default no limit over HTTP; over stdio the SDK's own buffer cap, with an error of its own
   */
  messageLimit?: MessageByteLimit;
  /** Allow HTTP servers on private and loopback addresses. @default false */
  allowPrivateNetwork?: boolean;
  /**
   * Hosts allowed on private addresses while every other host stays refused
   * (`AGENTQ_FETCH_ALLOW_HOSTS`: exact names or `*.suffix`). @default []
   */
  allowHosts?: readonly string[];
  /**
   * The `fetch` both HTTP transports use.
   * @default a `createGuardedFetch` with the same policy: it connects only to addresses it checked
   * (no DNS rebinding) and re-checks every redirect
   */
  fetch?: typeof fetch;
  /**
   * OAuth for servers with an `auth` block: the encrypted token store (`AGENTQ_SECRET_KEY`).
   * Unset: such a server is refused with `OAUTH_KEY_MISSING`.
   */
  oauth?: { store: OAuthTokenStore };
  /** `resolveSecrets`' `oauthSecrets`: the client secret and its host binding. @default [] */
  oauthSecrets?: readonly EgressSecret[];
  /** Told every elicitation the server sent and how it was answered (see `answerElicitation`). */
  onElicitation?: (record: { serverId: string; answer: ElicitationAnswer }) => void;
  /**
   * Answers the server's `elicitation/create` when its policy is `ask` (the worker: a recorded
   * answer, or a park of the run). Unset, or for any other policy: `answerElicitation` answers.
   */
  askElicitation?: (request: ElicitationRequest) => Promise<ElicitationResponse>;
  /** Aborts the connection attempt (BullMQ job signal, shutdown). */
  signal?: AbortSignal;
  /** Called once when an established connection closes without `close()` being called. */
  onUnexpectedClose?: () => void;
  /** `clientInfo.name` sent in `initialize`. @default 'agentq' */
  clientName?: string;
  /**
   * Builds the transport instead of the transport files; tests link in-memory servers here. The
   * guard, timeouts and error codes apply as for a real transport.
   */
  openTransport?: (definition: ServerDefinition) => Transport;
}

/**
 * Opens and initializes an MCP client for a server over stdio, Streamable HTTP or legacy SSE,
 * within the definition's `timeouts.connectMs` for the whole attempt (fallback included).
 *
 * - HTTP targets pass the fetch-target guard first (code `PRIVATE_ADDRESS` or `INVALID_URL`).
 * - A Streamable HTTP server that refuses the first POST as an old server would (see
 *   {@link shouldFallBackToSse}) is retried as legacy SSE on the same URL; `transport` says which
 *   one answered.
 * - A failed attempt closes what it opened (no stray child processes) and throws
 *   {@link McpConnectError} with `MCP_CONNECT_TIMEOUT` or `MCP_CONNECT_FAILED`, its message masked
 *   and, for stdio, ending with the server's last stderr; an HTTP 401/403 throws
 *   `MCP_AUTH_REQUIRED` or `MCP_AUTH_FAILED` instead (see {@link authFailureOf}).
 */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpConnection> {
  const { definition } = options;
  const deadline = Date.now() + definition.timeouts.connectMs;
  const logger = options.logger.child({ serverId: definition.id });
  const transport = definition.transport;

  if (transport.type !== 'stdio') {
    // Definitions can arrive over the API: never let one point a process at internal addresses.
    // The early check gives a clear refusal before anything is opened; the guarded fetch below is
    // what enforces it on every connection and redirect.
    await checkFetchTarget(transport.url, {
      allowPrivate: options.allowPrivateNetwork ?? false,
      allowHosts: options.allowHosts,
      label: `MCP server ${definition.id}`,
    });
  }

  if (definition.auth) await checkOAuthReady(definition, options);

  const attempt = (kind: McpTransportKind) =>
    initialize({ options, logger, kind, deadline, definition: withTransportType(definition, kind) });

  const first = await attempt(transport.type);
  if ('connection' in first) return first.connection;
  if (!first.fallBackToSse) throw first.error;
  logger.info('server refused Streamable HTTP; falling back to legacy SSE');
  const second = await attempt('sse');
  if ('connection' in second) return second.connection;
  throw second.error;
}

// Refused before anything is sent: no key to keep tokens with, or an authorization-code server no
// operator has connected yet (a headless process never starts that flow itself).
async function checkOAuthReady(definition: ServerDefinition, options: ConnectMcpServerOptions): Promise<void> {
  const serverAuth = definition.auth;
  if (!serverAuth) return;
  httpUrlOf(definition);
  if (!options.oauth) {
    throw new NonRetryableError({
      code: 'OAUTH_KEY_MISSING',
      message: `MCP server ${definition.id} uses OAuth, and AGENTQ_SECRET_KEY is not set on this process to keep its tokens`,
    });
  }
  if (serverAuth.grant !== 'authorization_code') return;
  const provider = new McpOAuthProvider({
    serverId: definition.id,
    serverUrl: httpUrlOf(definition),
    auth: serverAuth,
    store: options.oauth.store,
    fetch: globalThis.fetch,
  });
  if (!(await provider.hasTokens())) {
    throw new McpConnectError({
      code: MCP_ERROR_CODES.authRequired,
      message: `MCP server ${definition.id} needs authorization: run agentq servers authorize ${definition.id}`,
      connectionBroken: true,
    });
  }
}

// The SSE attempt of a fallback uses the same URL and headers under the other transport type.
function withTransportType(definition: ServerDefinition, kind: McpTransportKind): ServerDefinition {
  const transport = definition.transport;
  if (kind === transport.type || transport.type === 'stdio' || kind === 'stdio') return definition;
  return { ...definition, transport: { type: kind, url: transport.url, headers: transport.headers } };
}

const closeReasons = new WeakMap<Client, Error>();

/**
 * A failing authorization server fails every refresh, and a refresh is tried before each request:
 * one warning a minute per server and process, with the count of those held back since.
 */
const refreshWarnings = new WarningThrottle();

/**
 * Why a connection closed itself, when it did: the `messageLimit` error of a message that ran past
 * the limit. Requests in flight then fail as closed; this names the cause.
 */
export function closeReasonOf(client: Client): Error | undefined {
  return closeReasons.get(client);
}

// The SDK reads a failed answer's whole body into its error message: a server must not be able to
// make it buffer without end. A successful answer is capped per message when the caller asks.
function withBodyCaps(
  fetch: typeof globalThis.fetch,
  maxErrorBytes: number,
  messageLimit: MessageByteLimit | undefined,
): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status >= 400) return capResponseBody(response, { maxBytes: maxErrorBytes, onTooLarge: 'truncate' });
    return messageLimit ? capMessageBytes(response, messageLimit) : response;
  };
}

/** One connect attempt: a connection, or the error to throw and whether SSE is worth a try. */
type Attempt = { connection: McpConnection } | { error: Error; fallBackToSse: boolean };

async function initialize(input: {
  options: ConnectMcpServerOptions;
  logger: Logger;
  kind: McpTransportKind;
  deadline: number;
  definition: ServerDefinition;
}): Promise<Attempt> {
  const { options, definition, logger } = input;
  const stderr = new StderrCapture(logger);
  const client = new Client(
    { name: options.clientName ?? 'agentq', version: '0.1.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    if (definition.elicitation === 'ask' && options.askElicitation) {
      const asked = await options.askElicitation(request.params);
      logger.info({ elicitation: { policy: 'ask', action: asked.action } }, 'answered an elicitation');
      return asked;
    }
    const answer = answerElicitation(definition.elicitation, request.params);
    // Journaled by field names and outcome only: the values may be whatever a server asked for.
    logger.info(
      {
        elicitation: {
          policy: definition.elicitation ?? 'decline',
          action: answer.action,
          fields: answer.action === 'accept' ? Object.keys(answer.content) : undefined,
          reason: answer.action === 'decline' ? answer.reason : undefined,
        },
      },
      'answered an elicitation',
    );
    options.onElicitation?.({ serverId: definition.id, answer });
    return answer.action === 'accept' ? { action: 'accept', content: answer.content } : { action: 'decline' };
  });
  let closedOnPurpose = false;
  let closing: Promise<void> | undefined;
  const close = () => {
    closedOnPurpose = true;
    closing ??= client.close().catch(() => undefined);
    return closing;
  };
  // A message past the limit ends the connection: an event stream cut mid-event leaves its request
  // without an answer, so the request fails now, and `closeReasonOf` tells why.
  const limit = options.messageLimit;
  const messageLimit: MessageByteLimit | undefined = limit && {
    maxBytes: limit.maxBytes,
    tooLarge: () => {
      const error = limit.tooLarge();
      closeReasons.set(client, error);
      logger.warn({ error: error.message }, 'closing the connection: a message of the server is too large');
      void client.close().catch(() => undefined);
      return error;
    },
  };
  // The SDK reports transport errors here as well; they surface through the failing request.
  client.onerror = (error) => logger.debug({ error: messageOf(error) }, 'mcp transport error');

  let transport: Transport | undefined;
  let refusals: AuthRefusalRecorder | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  try {
    options.signal?.throwIfAborted();
    // One place for both roles: every HTTP transport fetches through the guard, which pins the
    // connection to the address it checked.
    const egressSecrets = options.egressSecrets ?? (options.secretValues ?? []).map((value) => ({ value }));
    const guarded =
      definition.transport.type === 'stdio'
        ? undefined
        : (options.fetch ??
          (createGuardedFetch({
            allowPrivate: options.allowPrivateNetwork ?? false,
            allowHosts: options.allowHosts,
            label: `MCP server ${definition.id}`,
            secrets: egressSecrets,
          }) as typeof globalThis.fetch));
    const capped =
      guarded === undefined
        ? undefined
        : withBodyCaps(
            definition.auth
              ? oauthFetchOf({ definition, egressSecrets, oauthSecrets: options.oauthSecrets, fetch: guarded })
              : guarded,
            options.errorBodyMaxBytes ?? 8192,
            messageLimit,
          );
    refusals = capped === undefined ? undefined : recordAuthRefusals(capped);
    const fetch = refusals?.fetch;
    // The provider's own requests (discovery, tokens) bypass the recorder: the refusal it reads is
    // the MCP server's answer to a request, never a discovery URL's 401 in between.
    const authProvider =
      definition.auth && options.oauth && capped && fetch
        ? new McpOAuthProvider({
            serverId: definition.id,
            serverUrl: httpUrlOf(definition),
            auth: definition.auth,
            store: options.oauth.store,
            fetch: capped,
            refusedBearer: refusals?.refusedBearer,
            refusal: refusals?.latest,
            clientName: options.clientName,
            onRefreshFailure: (message) => {
              const masked = maskServerError(message, [
                ...(options.secretValues ?? []),
                ...egressSecrets.map((secret) => secret.value),
              ]);
              const heldBack = refreshWarnings.take(definition.id);
              if (heldBack !== undefined) {
                logger.warn({ error: masked, ...(heldBack > 0 ? { heldBack } : {}) }, 'OAuth token refresh failed');
              }
            },
          })
        : undefined;
    transport = options.openTransport
      ? options.openTransport(definition)
      : openSdkTransport(definition.transport, { logger, stderr, fetch, authProvider, messageLimit });
    const remaining = Math.max(1, input.deadline - Date.now());
    // The SDK's timeout covers `initialize` only; a legacy SSE stream that never sends its
    // endpoint event would hang `start()` forever, so the whole attempt races one deadline.
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error('connect deadline passed'));
      }, remaining);
    });
    await Promise.race([client.connect(transport, { timeout: remaining, signal: options.signal }), deadline]);
  } catch (error) {
    await close();
    // A transport the client never took over (it failed before `connect`) is closed here.
    await transport?.close().catch(() => undefined);
    if (AgentqError.isInstance(error)) return { error, fallBackToSse: false };
    // An answer to `initialize` past `messageLimit`: the refusal names the limit, not the close.
    const reason = closeReasons.get(client);
    if (AgentqError.isInstance(reason)) return { error: reason, fallBackToSse: false };
    const timeout = timedOut || classifySdkError(error) === 'timeout';
    const auth = timeout
      ? undefined
      : authFailureOf({
          error,
          refusal: refusals?.latest(),
          serverId: definition.id,
          secretValues: options.secretValues ?? [],
        });
    if (auth) return { error: new McpConnectError({ ...auth, connectionBroken: true }), fallBackToSse: false };
    return {
      error: connectFailure({ error, timedOut: timeout, input, stderr }),
      fallBackToSse: !timeout && input.kind === 'streamable-http' && shouldFallBackToSse(error),
    };
  } finally {
    if (timer) clearTimeout(timer);
  }
  client.onclose = () => {
    if (!closedOnPurpose) options.onUnexpectedClose?.();
  };
  return {
    connection: {
      client,
      capabilities: client.getServerCapabilities(),
      transport: input.kind,
      stderrTail: () => maskSecretValues(stderr.tail(), options.secretValues ?? []),
      close,
    },
  };
}

function connectFailure(failure: {
  error: unknown;
  timedOut: boolean;
  input: { options: ConnectMcpServerOptions; kind: McpTransportKind; definition: ServerDefinition };
  stderr: StderrCapture;
}): McpConnectError {
  const { definition, options, kind } = failure.input;
  const stderrTail = failure.stderr.tail();
  const detail = failure.timedOut
    ? `did not finish connecting over ${kind} within ${definition.timeouts.connectMs} ms`
    : `connect over ${kind} failed (${messageOf(failure.error)})`;
  const message = `MCP server ${definition.id} ${detail}${stderrTail ? `; stderr: ${stderrTail}` : ''}`;
  return new McpConnectError({
    code: failure.timedOut ? MCP_ERROR_CODES.connectTimeout : MCP_ERROR_CODES.connectFailed,
    message: maskServerError(message, options.secretValues ?? []),
    connectionBroken: true,
  });
}
