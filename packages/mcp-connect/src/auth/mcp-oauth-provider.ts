import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { AgentqError, maskSecretValues, NonRetryableError, type ServerAuth } from '@agentq/shared';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthTokenStore, StoredOAuthState } from '@agentq/store';
import { insufficientScopeOf, oauthErrorOfBody, type AuthRefusal } from '../errors/auth-refusal.js';
import { SUBSTITUTED_TOKEN_ANSWER } from './oauth-egress.js';

/**
 * Refresh this long before the access token's stated expiry, so a request never races it; a token
 * that lives less than four times this gets a quarter of its lifetime instead, so that it is not
 * refreshed before every request.
 */
const EXPIRY_SKEW_MS = 30_000;

/** How many times a read-check-write of the stored state is tried while other writes land between. */
const UPDATE_ATTEMPTS = 10;

// The redirect URI of a headless client: it is never opened, only sent when the SDK must name one.
const HEADLESS_REDIRECT = 'http://127.0.0.1/agentq-oauth-callback';

/** Options of {@link McpOAuthProvider}. */
export interface McpOAuthProviderOptions {
  serverId: string;
  serverUrl: string;
  /** The definition's `auth` block, secrets resolved. */
  auth: ServerAuth;
  store: OAuthTokenStore;
  /** The fetch for authorization requests (guarded, with {@link withOAuthEgress}). */
  fetch: typeof globalThis.fetch;
  /**
   * The bearer token of the request the MCP server last refused (401/403), as sent; see
   * `recordAuthRefusals`. Unset: the token last read from the store stands for it.
   */
  refusedBearer?: () => string | undefined;
  /**
   * The MCP server's latest 401/403 answer (`recordAuthRefusals().latest`): a step-up is a 403
   * `insufficient_scope` there, never a plain 401. Unset: no refusal is taken for a step-up.
   */
  refusal?: () => AuthRefusal | undefined;
  /**
   * Told why a refresh failed (the authorization server's answer, a refused or timed-out request),
   * with the tokens and the client secret masked, not cut (mask any other secret, then cut); the
   * request then goes out with what is stored, and the MCP server's answer decides. For the log.
   */
  onRefreshFailure?: (message: string) => void;
  /** `client_name` sent in dynamic registration. @default 'agentq' */
  clientName?: string;
  /**
   * The https URL of a client ID metadata document (`AGENTQ_OAUTH_CLIENT_METADATA_URL`): an
   * authorization server that advertises `client_id_metadata_document_supported` gets it as the
   * client id, instead of a dynamic registration. Ignored with a pre-registered `clientId`.
   */
  clientMetadataUrl?: string;
  /**
   * An operator's authorization-code flow: where the authorization server sends the browser back,
   * the `state` bound to the flow, and where the authorization URL goes. Unset: headless (warmer,
   * worker), which never starts a flow and only uses and refreshes stored tokens.
   */
  interactive?: {
    redirectUrl: string;
    state: string;
    onAuthorizationUrl: (url: URL, codeVerifier: string) => Promise<void>;
    /** The code verifier of the flow being completed. */
    codeVerifier?: string;
  };
}

/** The union of space-separated OAuth scope lists, in first-seen order; `undefined` when empty. */
export function unionOfScopes(...lists: Array<string | undefined>): string | undefined {
  const scopes = new Set(lists.flatMap((list) => (list ?? '').split(' ').filter((scope) => scope !== '')));
  return scopes.size > 0 ? [...scopes].join(' ') : undefined;
}

/** What binds stored tokens to a definition: the server URL, grant and client. */
export function oauthBinding(serverUrl: string, serverAuth: ServerAuth): string {
  return createHash('sha256')
    .update(JSON.stringify([serverUrl, serverAuth.grant, serverAuth.clientId ?? null]))
    .digest('base64url');
}

/** A refresh this provider runs under the lease: the state it refreshes, as read there. */
interface RefreshScope {
  provider: McpOAuthProvider;
  state: StoredOAuthState | undefined;
  /** Aborts before the lease can pass to another process. */
  deadline: AbortSignal;
  /** Why storing an issued token failed, if it did (the SDK swallows that error). */
  saveFailure?: string;
}

// Marks the SDK's `auth()` that a provider runs to refresh: only calls made inside it (and not a
// request running beside it on the same session) see the refresh token and write over the state.
const insideRefresh = new AsyncLocalStorage<RefreshScope>();

/**
 * The MCP SDK's `OAuthClientProvider` over agentq's encrypted Redis store. The SDK does discovery,
 * registration, the token requests and the RFC 8707 `resource`; this class decides what is stored
 * and when a refresh token is used:
 * - the transport asks {@link tokens} before each request, which reads the store each time (one
 *   `GET`): deleted tokens are gone for every open session at its next request, and a headless
 *   authorization-code client with none refuses the request itself (`MCP_AUTH_REQUIRED`) rather
 *   than send it bare or register a client of its own;
 * - an access token that expired (or that the server refused before its expiry) is refreshed
 *   first, under the server's refresh lease, so that one process at a time uses the refresh token
 *   and the others read what it stored. The SDK sees the refresh token only inside that refresh
 *   (never in a request running beside it), so its own 401 handling cannot spend one either
 *   (client credentials simply ask for a new token);
 * - every write that rests on a read is made only while the record is still the one read
 *   (`writeIfUnchanged`): a refresh or a "token refused" mark never undoes a deauthorize, nor a
 *   newer authorization, that landed in between.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private readonly options: McpOAuthProviderOptions;
  private readonly binding: string;
  private stored: StoredOAuthState | undefined;
  private loaded = false;
  private verifier: string | undefined;

  constructor(options: McpOAuthProviderOptions) {
    this.options = options;
    this.binding = oauthBinding(options.serverUrl, options.auth);
    this.verifier = options.interactive?.codeVerifier;
    if (options.interactive) this.saveClientInformation = (information) => this.storeClient(information);
  }

  get redirectUrl(): string | undefined {
    if (this.options.auth.grant === 'client_credentials') return undefined;
    return this.options.interactive?.redirectUrl ?? HEADLESS_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { auth: serverAuth } = this.options;
    const codeGrant = serverAuth.grant === 'authorization_code';
    return {
      client_name: this.options.clientName ?? 'agentq',
      redirect_uris: codeGrant ? [this.redirectUrl ?? HEADLESS_REDIRECT] : [],
      grant_types: codeGrant ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: codeGrant ? ['code'] : [],
      token_endpoint_auth_method: serverAuth.clientSecret ? 'client_secret_basic' : 'none',
      ...(serverAuth.scopes?.length ? { scope: serverAuth.scopes.join(' ') } : {}),
    };
  }

  get clientMetadataUrl(): string | undefined {
    if (this.options.auth.clientId !== undefined || this.options.auth.grant !== 'authorization_code') return undefined;
    return this.options.clientMetadataUrl;
  }

  state(): string {
    return this.options.interactive?.state ?? '';
  }

  /** Whether the store holds tokens for this server (under the current definition). */
  async hasTokens(): Promise<boolean> {
    await this.load();
    return this.stored?.tokens !== undefined;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId, clientSecret } = this.options.auth;
    if (clientId !== undefined)
      return clientSecret ? { client_id: clientId, client_secret: clientSecret } : { client_id: clientId };
    await this.load();
    const client = this.stored?.client as OAuthClientInformationMixed | undefined;
    // Only an operator's authorization registers a client: a headless process without one (a
    // deauthorize, or an authorization server that refused it, took it) stops before the SDK
    // would register another.
    if (client === undefined && !this.options.interactive) throw this.authorizationNeeded();
    return client;
  }

  /**
   * Stores a registered client: only in an operator's authorization. A headless provider has no
   * such method, so the SDK can never register a client from a warmer or a worker (it refuses
   * instead), and a client registered for the operator's redirect URI is never replaced.
   */
  readonly saveClientInformation?: (information: OAuthClientInformationMixed) => Promise<void>;

  async tokens(): Promise<OAuthTokens | undefined> {
    // The SDK's auth() reads the refresh token here: only inside this provider's own refresh.
    const scope = this.refreshScope();
    if (scope) return scope.state?.tokens;
    if (this.options.interactive) return undefined;
    // Read again before every request: the store, not what this session read when it opened, says
    // whether the server is authorized. A deauthorize (or a new authorization) reaches the
    // warmer's watcher and the workers' pooled clients at their next request.
    this.stored = await this.readBound();
    this.loaded = true;
    await this.refreshIfStale();
    const tokens = this.stored?.tokens;
    if (!tokens) {
      if (this.options.auth.grant === 'authorization_code') throw this.authorizationNeeded();
      return undefined;
    }
    const { refresh_token: _hidden, ...rest } = tokens;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const change = (state: StoredOAuthState): StoredOAuthState => ({
      ...state,
      // A token answer without a new refresh token leaves the old one valid (RFC 6749 §6).
      tokens: { ...tokens, refresh_token: tokens.refresh_token ?? state.tokens?.refresh_token },
      expiresAt: expiresAtOf(tokens.expires_in),
      rejected: undefined,
      // An operator's new authorization asked for the pending scopes; a refresh cannot add any.
      pendingScope: this.options.interactive ? undefined : state.pendingScope,
    });
    const scope = this.refreshScope();
    if (!scope) {
      await this.update(() => true, change);
      return;
    }
    // A refresh lands only over the tokens it refreshed: a deauthorize, or another authorization
    // or refresh that landed meanwhile, stands, and this answer is dropped. A mark or a pending
    // scope written beside it keeps the same tokens, and is kept.
    const refreshed = scope.state?.tokens;
    // The refresh token is spent: a failed write (Redis) is tried again while the lease holds.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const written = await this.update((state) => sameTokens(state.tokens, refreshed), change);
        if (written) scope.state = written;
        return;
      } catch (error) {
        if (attempt >= 3 || scope.deadline.aborted || AgentqError.isInstance(error)) {
          scope.saveFailure = reasonOf(error);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.options.interactive) {
      await this.options.interactive.onAuthorizationUrl(authorizationUrl, this.verifier ?? '');
      return;
    }
    // Headless: the server refused a token it had not yet let expire, or nothing can be refreshed.
    // Mark it so that the next use refreshes it under the lease; this request fails as unauthorized.
    if (this.refreshScope()) return;
    // The token the server refused, as sent: not what the store holds by now (another request may
    // have refreshed it since, and a fresh token must not be marked).
    const refused = this.options.refusedBearer ? this.options.refusedBearer() : this.stored?.tokens?.access_token;
    if (refused === undefined) return;
    const stepUp = await this.recordStepUp(authorizationUrl.searchParams.get('scope') ?? undefined, refused);
    if (stepUp !== undefined) {
      const { serverId } = this.options;
      const named = stepUp.pendingScope ? ` (${stepUp.pendingScope})` : '';
      throw new NonRetryableError({
        code: 'MCP_AUTH_REQUIRED',
        message: `MCP server ${serverId} needs authorization with more scope${named}: run agentq servers authorize ${serverId}`,
      });
    }
    await this.update(
      (state) => state.tokens?.access_token === refused && state.tokens.refresh_token !== undefined && !state.rejected,
      (state) => ({ ...state, rejected: true }),
    );
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no authorization-code flow in progress');
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.options.auth.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    // A step-up (403 insufficient_scope) asks for the challenge's scopes, which the SDK does not
    // pass (only the configured ones), and keeps the granted ones. A token fetched because the
    // last one expired (this provider's own refresh) is no step-up, whatever an old 403 said.
    const asked = this.refreshScope() ? undefined : insufficientScopeOf(this.options.refusal?.()) || undefined;
    const requested = scope || asked ? unionOfScopes(this.stored?.tokens?.scope, scope, asked) : undefined;
    if (requested) params.set('scope', requested);
    return params;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    if (scope === 'discovery') return;
    // An operator's flow never used the stored tokens (the workers' and warmers'): a refused code
    // or client there forgets at most the client it presented, never those tokens.
    const tokensKept = scope === 'client' || this.options.interactive !== undefined;
    if (scope === 'tokens' && tokensKept) return;
    const change = (state: StoredOAuthState): StoredOAuthState => ({
      ...state,
      ...(scope === 'tokens' ? {} : { client: undefined }),
      // What went with the tokens goes with them; a pending scope stays for the next authorization.
      ...(tokensKept ? {} : { tokens: undefined, expiresAt: undefined, rejected: undefined }),
    });
    // What the authorization server refused is what this process used: the tokens its refresh
    // read, or the ones it last read. A newer authorization stored meanwhile is not wiped.
    const refresh = this.refreshScope();
    const used = refresh ? refresh.state?.tokens : this.stored?.tokens;
    const written = await this.update(
      (state) =>
        tokensKept ? state.client !== undefined : state.tokens !== undefined && sameTokens(state.tokens, used),
      change,
    );
    // The SDK tries again inside the same refresh: it must not see what was just refused.
    if (refresh) refresh.state = written ?? (refresh.state && change(refresh.state));
  }

  /**
   * Step-up of a headless authorization-code client: the server refused the token with a 403
   * `insufficient_scope`. A refresh cannot widen a grant, so the granted scopes, the challenge's
   * and the authorization URL's are stored as pending for the operator's next authorization
   * (`agentq servers authorize`), and the stored state is read again before the next request, to
   * pick up the tokens it brings. `undefined` when the refusal is no step-up (a plain 401: the
   * token is refreshed instead).
   */
  private async recordStepUp(
    urlScope: string | undefined,
    refused: string,
  ): Promise<{ pendingScope: string | undefined } | undefined> {
    const asked = insufficientScopeOf(this.options.refusal?.());
    if (asked === undefined) return undefined;
    const pendingScope = unionOfScopes(this.stored?.pendingScope, this.stored?.tokens?.scope, asked || urlScope);
    // Recorded beside the tokens that were refused for want of it, not over a deauthorize or a
    // newer authorization.
    if (pendingScope !== undefined) {
      await this.update(
        (state) => state.tokens?.access_token === refused && state.pendingScope !== pendingScope,
        (state) => ({ ...state, pendingScope }),
      );
    }
    this.loaded = false;
    return { pendingScope };
  }

  private async refreshIfStale(): Promise<void> {
    if (!this.isStale(this.stored)) return;
    const { serverId, store } = this.options;
    await store.withRefreshLease(serverId, async (deadline) => {
      // Another process may have refreshed while this one waited for its turn.
      const scope: RefreshScope = { provider: this, state: await this.readBound(), deadline };
      if (!this.isStale(scope.state)) return;
      const watched = watchTokenRequests(this.options.fetch, deadline);
      // What the refresh starts with: the SDK may forget the client or the tokens on the way.
      const before = scope.state;
      let result: string | undefined;
      let thrown: string | undefined;
      try {
        result = await insideRefresh.run(scope, () =>
          auth(this, { serverUrl: this.options.serverUrl, fetchFn: watched.fetchFn }),
        );
      } catch (error) {
        // Left stale: the request goes out with what there is, and the server's answer decides. An
        // error after the token endpoint said 200 may quote that answer (a token), so not its text.
        thrown = watched.answered && !AgentqError.isInstance(error) ? UNUSABLE_TOKEN_ANSWER : reasonOf(error);
      }
      if (result !== 'AUTHORIZED') {
        const reason = scope.saveFailure
          ? `a token was issued, and storing it failed: ${scope.saveFailure}`
          : (watched.failure ?? thrown ?? (watched.answered ? UNUSABLE_TOKEN_ANSWER : 'no token was issued'));
        this.options.onRefreshFailure?.(this.refreshFailureText(reason, before));
      }
    });
    this.stored = await this.readBound();
  }

  private async storeClient(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client lives in the definition and its secrets; only a registered one is stored.
    if (this.options.auth.clientId !== undefined) return;
    await this.update(
      () => true,
      (state) => ({ ...state, client: information }),
    );
  }

  /** The refresh this provider runs, when the caller is inside it. */
  private refreshScope(): RefreshScope | undefined {
    const scope = insideRefresh.getStore();
    return scope?.provider === this ? scope : undefined;
  }

  /** Why a refresh failed, with the tokens it held and the client secrets masked in every form. */
  private refreshFailureText(reason: string, state: StoredOAuthState | undefined): string {
    const { tokens } = state ?? {};
    const client = state?.client as OAuthClientInformationMixed | undefined;
    const secrets = [
      tokens?.access_token,
      tokens?.refresh_token,
      this.options.auth.clientSecret,
      client?.client_secret,
    ].filter((value): value is string => value !== undefined);
    return maskSecretValues(
      `refreshing the OAuth token of MCP server ${this.options.serverId} failed: ${reason}`,
      secrets,
    );
  }

  private authorizationNeeded(): NonRetryableError {
    const { serverId } = this.options;
    return new NonRetryableError({
      code: 'MCP_AUTH_REQUIRED',
      message: `MCP server ${serverId} needs authorization: run agentq servers authorize ${serverId}`,
    });
  }

  private isStale(state: StoredOAuthState | undefined): boolean {
    const tokens = state?.tokens;
    if (!tokens) return false;
    const lifetimeMs = Number.isFinite(tokens.expires_in)
      ? (tokens.expires_in as number) * 1000
      : Number.POSITIVE_INFINITY;
    const skew = Math.min(EXPIRY_SKEW_MS, Math.max(0, lifetimeMs) / 4);
    const expired = state.rejected === true || (state.expiresAt !== undefined && state.expiresAt - skew <= Date.now());
    if (!expired) return false;
    return tokens.refresh_token !== undefined || this.options.auth.grant === 'client_credentials';
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.stored = await this.readBound();
    this.loaded = true;
  }

  private async readBound(): Promise<StoredOAuthState | undefined> {
    const stored = await this.options.store.read(this.options.serverId);
    return stored?.binding === this.binding ? stored : undefined;
  }

  /**
   * Changes the stored state from a fresh read when `applies` to it, written only while the record
   * is still the one read (a compare-and-set on its stored text): read, check and write again on a
   * change in between, up to {@link UPDATE_ATTEMPTS} times. A state of another definition (another
   * binding) reads as empty, and is left alone by a headless authorization-code client. Returns
   * what was written, `undefined` when it did not apply.
   */
  private async update(
    applies: (state: StoredOAuthState) => boolean,
    change: (state: StoredOAuthState) => StoredOAuthState,
  ): Promise<StoredOAuthState | undefined> {
    const { serverId, store } = this.options;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
      const { state, version } = await store.readVersioned(serverId);
      // An authorization-code record for a changed definition is started only by an operator's
      // authorization: a process still on the old definition never replaces it. Client
      // credentials have no operator step: the process on the current definition starts its own.
      const foreign = state !== undefined && state.binding !== this.binding;
      if (foreign && !this.options.interactive && this.options.auth.grant === 'authorization_code') return undefined;
      const current = state?.binding === this.binding ? state : { binding: this.binding };
      if (!applies(current)) return undefined;
      const next = change(current);
      if (await store.writeIfUnchanged(serverId, version, next)) {
        this.stored = next;
        this.loaded = true;
        return next;
      }
    }
    throw new AgentqError({
      code: 'CONFLICT',
      message: `the OAuth state of MCP server ${serverId} kept changing while it was being written; try again`,
    });
  }
}

/** Longest access-token lifetime taken from a token answer: ten years. */
const MAX_TOKEN_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

/**
 * When an access token expires, from a token answer's `expires_in` (seconds): none stated (or 0
 * or less, which the SDK also makes of a `null` or empty one), none known, and the server's
 * refusal decides when it is refreshed, instead of a refresh before every request; a huge or
 * infinite one is capped, so it always stores.
 */
function expiresAtOf(expiresIn: number | undefined): number | undefined {
  if (expiresIn === undefined || Number.isNaN(expiresIn) || expiresIn <= 0) return undefined;
  return Date.now() + Math.min(expiresIn, MAX_TOKEN_LIFETIME_SECONDS) * 1000;
}

/** Why a refresh failed when the token endpoint said 200 but no token came of it. */
const UNUSABLE_TOKEN_ANSWER = 'the token endpoint answered HTTP 200 without a usable token';

/**
 * The fetch of one refresh: every request ends with the lease (`deadline`), and what the token
 * endpoint did is kept. The SDK swallows some failures (a 5xx, a refused connection) and turns
 * others into a plain "authorize again"; only token requests (POST) count, never a discovery URL
 * the SDK falls back from.
 */
function watchTokenRequests(fetch: typeof globalThis.fetch, deadline: AbortSignal) {
  const watched = {
    /** The token endpoint's refusal, or why a token request failed. */
    failure: undefined as string | undefined,
    /** Whether the token endpoint answered 200. */
    answered: false,
    fetchFn: (async (input, init) => {
      const token = init?.method === 'POST';
      try {
        const response = await fetch(input, {
          ...init,
          signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
        });
        if (token && response.status >= 400) watched.failure = await tokenRefusalOf(response);
        if (token && response.ok) watched.answered = true;
        return response;
      } catch (error) {
        if (token) watched.failure = reasonOf(error);
        throw error;
      }
    }) as typeof globalThis.fetch,
  };
  return watched;
}

/**
 * A token endpoint's refusal (4xx/5xx, whose body the capped fetch bounds): its status, and its
 * OAuth `error` and `error_description` if it gives them.
 */
async function tokenRefusalOf(response: Response): Promise<string> {
  const substituted = response.headers.get(SUBSTITUTED_TOKEN_ANSWER);
  if (substituted !== null)
    return `the token endpoint answered HTTP ${substituted} with a body that is not a JSON object`;
  // A body that fails to read (cut off, too large) only leaves the details out.
  const refusal = oauthErrorOfBody(
    await response
      .clone()
      .text()
      .catch(() => ''),
  );
  const detail = refusal ? [refusal.error, refusal.description].filter((part) => part !== undefined).join(': ') : '';
  return `the token endpoint answered HTTP ${response.status}${detail ? ` (${detail})` : ''}`;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** Whether two token sets are the same grant (access and refresh token), or both absent. */
function sameTokens(a: OAuthTokens | undefined, b: OAuthTokens | undefined): boolean {
  return a?.access_token === b?.access_token && a?.refresh_token === b?.refresh_token;
}
