import { AgentqError, maskServerError } from '@agentq/shared';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_ERROR_CODES } from './mcp-error-codes.js';

/** What an HTTP MCP server said when it refused agentq for want of authorization. */
export interface AuthRefusal {
  status: 401 | 403;
  /** The `WWW-Authenticate` header, as sent. */
  challenge?: string;
  /** The answer's body (already capped by the transport's error-body cap). */
  body?: string;
}

/** A `fetch` that remembers the latest 401/403 answer it passed on, for {@link authFailureOf}. */
export interface AuthRefusalRecorder {
  fetch: typeof globalThis.fetch;
  latest(): AuthRefusal | undefined;
  /**
   * The bearer token the refused request carried (`undefined` when it carried none), for the
   * OAuth provider to mark exactly that token refused. Kept apart from {@link AuthRefusal}, which
   * reaches statuses and logs.
   */
  refusedBearer(): string | undefined;
}

const BEARER = /^bearer\s+(\S+)$/i;

function bearerOf(input: Parameters<typeof globalThis.fetch>[0], init: RequestInit | undefined): string | undefined {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  return BEARER.exec(headers.get('authorization') ?? '')?.[1];
}

/** Wraps `fetch` so that the latest 401 or 403 answer (its challenge and body) can be read later. */
export function recordAuthRefusals(fetch: typeof globalThis.fetch): AuthRefusalRecorder {
  let latest: AuthRefusal | undefined;
  let refusedBearer: string | undefined;
  return {
    latest: () => latest,
    refusedBearer: () => refusedBearer,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401 || response.status === 403) {
        refusedBearer = bearerOf(input, init);
        const body = await response
          .clone()
          .text()
          .catch(() => undefined);
        latest = { status: response.status, challenge: response.headers.get('www-authenticate') ?? undefined, body };
      }
      return response;
    },
  };
}

/** An authorization refusal, as recorded in a server's status. */
export interface AuthFailure {
  code: typeof MCP_ERROR_CODES.authRequired | typeof MCP_ERROR_CODES.authFailed;
  /** Masked and bounded: safe for logs, statuses and the model. */
  message: string;
}

/**
 * Whether an error out of the SDK is an HTTP authorization refusal, decided on the error's class
 * and HTTP status (never its text): `MCP_AUTH_FAILED` when the server named an OAuth `error` (in
 * its `WWW-Authenticate` challenge or a JSON body), `MCP_AUTH_REQUIRED` otherwise. `undefined` for
 * any other failure.
 */
export function authFailureOf(input: {
  error: unknown;
  refusal: AuthRefusal | undefined;
  serverId: string;
  secretValues: readonly string[];
}): AuthFailure | undefined {
  if (input.error instanceof OAuthError) {
    // The authorization server refused (a token, registration or refresh request).
    return {
      code: MCP_ERROR_CODES.authFailed,
      message: maskServerError(
        `MCP server ${input.serverId}: the authorization server refused (${input.error.errorCode}: ${input.error.message})`,
        input.secretValues,
      ),
    };
  }
  if (AgentqError.isInstance(input.error) && input.error.code === MCP_ERROR_CODES.authRequired) {
    // The OAuth provider's own refusal (a step-up that needs the operator), already worded.
    return { code: MCP_ERROR_CODES.authRequired, message: input.error.message };
  }
  const status = httpStatusOf(input.error) ?? (input.error instanceof UnauthorizedError ? 401 : undefined);
  if (status !== 401 && status !== 403) return undefined;
  const refusal = input.refusal?.status === status ? input.refusal : undefined;
  const details = refusal ? oauthErrorOf(refusal) : undefined;
  if (!details) {
    return {
      code: MCP_ERROR_CODES.authRequired,
      message: `MCP server ${input.serverId} needs authorization (HTTP ${status})`,
    };
  }
  const described = details.description ? `${details.error}: ${details.description}` : details.error;
  return {
    code: MCP_ERROR_CODES.authFailed,
    message: maskServerError(
      `MCP server ${input.serverId} refused authorization (HTTP ${status}, ${described})`,
      input.secretValues,
    ),
  };
}

/**
 * The scope a refusal asks for when it is a step-up: a 403 whose OAuth error is
 * `insufficient_scope` (its challenge's `scope`, `''` when it names none). `undefined` for any
 * other refusal, a plain 401 among them.
 */
export function insufficientScopeOf(refusal: AuthRefusal | undefined): string | undefined {
  if (refusal?.status !== 403 || oauthErrorOf(refusal)?.error !== 'insufficient_scope') return undefined;
  return (refusal.challenge ? challengeParam(refusal.challenge, 'scope') : undefined) ?? '';
}

function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) return error.code;
  return undefined;
}

/** The OAuth `error` and `error_description` of a refusal: from the challenge first, then a JSON body. */
function oauthErrorOf(refusal: AuthRefusal): { error: string; description?: string } | undefined {
  if (refusal.challenge) {
    const error = challengeParam(refusal.challenge, 'error');
    if (error) return { error, description: challengeParam(refusal.challenge, 'error_description') };
  }
  return refusal.body ? oauthErrorOfBody(refusal.body) : undefined;
}

/** The OAuth `error` and `error_description` of an error answer's JSON body (RFC 6749 §5.2), if it has them. */
export function oauthErrorOfBody(body: string): { error: string; description?: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const { error, error_description: description } = parsed as Record<string, unknown>;
      if (typeof error === 'string' && error.length > 0) {
        return { error, description: typeof description === 'string' ? description : undefined };
      }
    }
  } catch {
    // Not JSON: no details.
  }
  return undefined;
}

/** One auth-param of a challenge (`name="quoted"` or `name=token`), per RFC 9110 §11.2. */
function challengeParam(challenge: string, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,]+))`, 'i');
  const match = pattern.exec(challenge);
  if (!match) return undefined;
  const value = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
  return value && value.length > 0 ? value : undefined;
}
