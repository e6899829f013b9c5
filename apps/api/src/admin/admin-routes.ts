import { LISTED_RUN_STATES, type AgentqClient } from '@agentq/client';
import { AgentqError, type ApiScope } from '@agentq/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  SESSION_COOKIE,
  SESSION_TTL_MS,
  type AdminSession,
  type AdminSessionStore,
} from '../auth/admin-session-store.js';
import type { ApiTokenSet } from '../auth/api-token-set.js';
import { errorResponse, UNEXPECTED_ERROR_LOG } from '../http/error-response.js';
import type { RouteAccess } from '../auth/route-access.js';
import { isSameOrigin, type AdminAuthenticator } from './admin-guard.js';
import { escapeHtml, formatTime, page } from './html.js';
import { answerFromForm, elicitationsSection } from './elicitation-inbox.js';
import { catalogPage, readCatalogRows } from './catalog-page.js';
import { LIVE_REFRESH_SCRIPT, LIVE_REFRESH_SCRIPT_PATH } from './live-refresh-script.js';
import { runPage, runsListPage } from './run-pages.js';

/** Options of {@link registerAdminRoutes}. */
export interface AdminRoutesOptions {
  client: AgentqClient;
  tokens: ApiTokenSet;
  sessions: AdminSessionStore;
  auth: AdminAuthenticator;
  /** Login attempts one client address may make per minute. */
  loginRateLimit: number;
  /** This process's secret values, masked out of server errors shown on the catalog page. */
  secretValues?: readonly string[];
}

const loginBody = z.object({ token: z.string().max(4_096).default(''), next: z.string().optional() });
const decisionForm = z.object({
  decision: z.enum(['approve', 'deny']),
  /** Where to go after deciding: the run page the form was on. @default the inbox */
  next: z.string().max(400).optional(),
  reason: z.string().max(2_000).optional(),
  _csrf: z.string().optional(),
});

/** `?refresh=<seconds>` of a run page: how often it reloads while the run moves (tests use 1). */
const runPageQuery = z.object({
  notice: z.string().optional(),
  error: z.string().optional(),
  refresh: z.coerce.number().int().min(1).max(300).optional().catch(undefined),
});

const runsQuery = z.object({
  state: z.enum(LISTED_RUN_STATES).optional(),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

const PUBLIC: RouteAccess = { kind: 'public' };

/** An admin page for a session holding one of `scopes` (any session when none are given). */
function pageFor(...scopes: ApiScope[]): RouteAccess {
  return { kind: 'page', scopes };
}

function safeNext(next: string | undefined): string {
  // Only local admin paths: an open redirect after login would hand the session to a phishing page.
  return next && /^\/admin\/[A-Za-z0-9/_.?=&%-]*$/.test(next) && !next.startsWith('//') ? next : '/admin/approvals';
}

/**
 * The login form, the approvals inbox and a run page: server-rendered HTML, no front-end build.
 * Sessions live in Redis and end on logout; the session cookie is HttpOnly and SameSite=Strict;
 * every form post passes the CSRF rule of `/admin` (see `passesCsrf`), checked before the handler.
 * The inbox needs the `approvals` scope, a run page `runs` or `approvals`.
 */
export function registerAdminRoutes(app: FastifyInstance, options: AdminRoutesOptions): void {
  const { client, tokens, sessions, auth } = options;

  // Each route declares who may call it (`config.access`); the authorization hook has already
  // checked it, with the session, before any handler here runs.
  const sessionOf = async (request: FastifyRequest): Promise<AdminSession> => {
    const found = await auth.authenticate(request);
    // Unreachable behind the hook; refuses rather than serve a page without a session.
    if (!found?.session) throw new AgentqError({ code: 'UNAUTHORIZED', message: 'Log in at /admin/login' });
    return found.session;
  };

  app.get('/admin', { config: { access: PUBLIC } }, async (_request, reply) => reply.redirect('/admin/approvals', 303));
  // The pages' one script, served from this origin: the CSP allows no inline script.
  app.get(LIVE_REFRESH_SCRIPT_PATH, { config: { access: PUBLIC } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(LIVE_REFRESH_SCRIPT),
  );

  app.get('/admin/login', { config: { access: PUBLIC } }, async (request, reply) => {
    const next = safeNext((request.query as { next?: string }).next);
    return reply.type('text/html').send(loginPage({ next }));
  });

  app.post(
    '/admin/login',
    // Counted per client address before the token is even looked at, so guessing is slow. No session
    // exists yet, so the CSRF rule cannot apply: the handler checks `Origin` itself.
    {
      config: {
        access: PUBLIC,
        csrfExempt: true,
        rateLimit: { max: options.loginRateLimit, timeWindow: 60_000 },
      },
    },
    async (request, reply) => {
      // A login posted from another site would sign the browser in as the attacker (login CSRF).
      if (isSameOrigin(request) === false) return csrfFailure(reply);
      const parsed = loginBody.safeParse(request.body ?? {});
      const next = safeNext(parsed.success ? parsed.data.next : undefined);
      const principal = parsed.success ? tokens.authenticate(parsed.data.token) : undefined;
      if (!principal) {
        return reply
          .status(401)
          .type('text/html')
          .send(
            loginPage({
              next,
              error:
                parsed.success && parsed.data.token.trim() !== ''
                  ? 'Token not recognised. If agentq dev was restarted with --rotate-token, use the token it printed.'
                  : 'Send a token: paste the API token agentq dev printed (or AGENTQ_API_TOKEN).',
            }),
          );
      }
      const previous = request.cookies[SESSION_COOKIE];
      if (previous) await sessions.destroy(previous);
      void reply.setCookie(SESSION_COOKIE, await sessions.create(principal), {
        httpOnly: true,
        sameSite: 'strict',
        secure: request.protocol === 'https',
        path: '/admin',
        maxAge: Math.floor(SESSION_TTL_MS / 1000),
      });
      return reply.redirect(next, 303);
    },
  );

  app.post('/admin/logout', { config: { access: pageFor() } }, async (request, reply) => {
    // The CSRF rule already ran (preHandler of /admin): a forged logout never gets here.
    await sessions.destroy(request.cookies[SESSION_COOKIE]);
    void reply.clearCookie(SESSION_COOKIE, { path: '/admin' });
    return reply.redirect('/admin/login', 303);
  });

  app.get('/admin/approvals', { config: { access: pageFor('approvals') } }, async (request, reply) => {
    const session = await sessionOf(request);
    const query = request.query as { notice?: string; error?: string; run?: string };
    let approvals: Awaited<ReturnType<AgentqClient['listPendingApprovals']>> = [];
    let elicitations: Awaited<ReturnType<AgentqClient['listPendingElicitations']>> = [];
    let loadError: string | undefined;
    try {
      approvals = await client.listPendingApprovals();
      elicitations = await client.listPendingElicitations();
    } catch (error) {
      loadError = errorResponse(error).body.error.message;
    }
    return reply.type('text/html').send(
      inboxPage({
        approvals,
        elicitations: elicitationsSection(elicitations, session.csrf),
        csrf: session.csrf,
        who: session.principal.name,
        notice: query.notice,
        runId: query.run,
        error: query.error ?? loadError,
      }),
    );
  });

  app.post(
    '/admin/approvals/:approvalId/decision',
    { config: { access: pageFor('approvals') } },
    async (request, reply) => {
      const session = await sessionOf(request);
      const approvalId = (request.params as { approvalId: string }).approvalId;
      const form = decisionForm.safeParse(request.body ?? {});
      if (!form.success) return reply.redirect(`/admin/approvals?error=${encodeURIComponent('Invalid form')}`, 303);
      const approved = form.data.decision === 'approve';
      // From a run page, back to it (a local run page only, never an arbitrary URL).
      const back =
        form.data.next && /^\/admin\/runs\/[A-Za-z0-9%_.-]+$/.test(form.data.next) ? form.data.next : undefined;
      const reason = form.data.reason?.trim() || undefined;
      let runId: string | undefined;
      let decidedBy: string;
      try {
        const pending = (await client.listPendingApprovals()).find((approval) => approval.approvalId === approvalId);
        runId = pending?.runId;
        // Who decided is the token that logged in, never something the form says.
        const decision = await client.decide({
          approvalId,
          approved,
          reason,
          decidedBy: session.principal.name,
          via: 'inbox',
        });
        decidedBy = decision.decidedBy;
      } catch (error) {
        const message = AgentqError.isInstance(error) ? `${error.code}: ${error.message}` : 'The decision failed';
        return reply.redirect(`${back ?? '/admin/approvals'}?error=${encodeURIComponent(message)}`, 303);
      }
      const notice = `${approved ? 'Approved' : 'Denied'} ${approvalId}${runId ? ` (run ${runId})` : ''} as ${decidedBy}`;
      if (back) return reply.redirect(`${back}?notice=${encodeURIComponent(notice)}`, 303);
      const runPart = runId ? `&run=${encodeURIComponent(runId)}` : '';
      return reply.redirect(`/admin/approvals?notice=${encodeURIComponent(notice)}${runPart}`, 303);
    },
  );

  app.post(
    '/admin/elicitations/:elicitationId/answer',
    { config: { access: pageFor('approvals') } },
    async (request, reply) => {
      const session = await sessionOf(request);
      const elicitationId = (request.params as { elicitationId: string }).elicitationId;
      try {
        // Who answered is the token that logged in, never something the form says.
        const notice = await answerFromForm({
          client,
          elicitationId,
          body: request.body,
          answeredBy: session.principal.name,
        });
        return reply.redirect(`/admin/approvals?notice=${encodeURIComponent(notice)}`, 303);
      } catch (error) {
        const message = AgentqError.isInstance(error) ? `${error.code}: ${error.message}` : 'The answer failed';
        return reply.redirect(`/admin/approvals?error=${encodeURIComponent(message)}`, 303);
      }
    },
  );

  app.get('/admin/runs', { config: { access: pageFor('runs', 'approvals') } }, async (request, reply) => {
    const session = await sessionOf(request);
    const query = runsQuery.safeParse(request.query ?? {});
    const filter = query.success ? query.data : { offset: 0 };
    try {
      const list = await client.listRuns({ state: filter.state, offset: filter.offset, limit: 25 });
      return reply.type('text/html').send(runsListPage({ list, state: filter.state, csrf: session.csrf }));
    } catch (error) {
      return errorPage(reply, { title: 'Runs', csrf: session.csrf, error });
    }
  });

  app.get('/admin/runs/:runId', { config: { access: pageFor('runs', 'approvals') } }, async (request, reply) => {
    const session = await sessionOf(request);
    const runId = (request.params as { runId: string }).runId;
    const parsed = runPageQuery.safeParse(request.query ?? {});
    const query = parsed.success ? parsed.data : {};
    try {
      const timeline = await client.getRunTimeline(runId);
      const html = runPage({ timeline, csrf: session.csrf, refreshSeconds: query.refresh });
      const banner = `${query.notice ? `<div class="notice" role="status">${escapeHtml(query.notice)}</div>` : ''}${
        query.error ? `<div class="error" role="alert">${escapeHtml(query.error)}</div>` : ''
      }`;
      return reply.type('text/html').send(banner ? html.replace('<main>', `<main>${banner}`) : html);
    } catch (error) {
      return errorPage(reply, { title: 'Run', csrf: session.csrf, error });
    }
  });

  app.get('/admin/catalog', { config: { access: pageFor('servers') } }, async (request, reply) => {
    const session = await sessionOf(request);
    const query = request.query as { notice?: string; error?: string };
    try {
      const rows = await readCatalogRows({ client, secretValues: options.secretValues ?? [] });
      return reply
        .type('text/html')
        .send(catalogPage({ rows, csrf: session.csrf, notice: query.notice, error: query.error }));
    } catch (error) {
      return errorPage(reply, { title: 'Catalog', csrf: session.csrf, error });
    }
  });

  app.post('/admin/catalog/:serverId/refresh', { config: { access: pageFor('servers') } }, async (request, reply) => {
    // The CSRF rule already ran (preHandler of the admin surface).
    const serverId = (request.params as { serverId: string }).serverId;
    try {
      await client.refreshServer(serverId);
    } catch (error) {
      const message = AgentqError.isInstance(error) ? `${error.code}: ${error.message}` : 'The refresh failed';
      return reply.redirect(`/admin/catalog?error=${encodeURIComponent(message)}`, 303);
    }
    const notice = `Refresh of ${serverId} requested`;
    return reply.redirect(`/admin/catalog?notice=${encodeURIComponent(notice)}`, 303);
  });
}

function errorPage(reply: FastifyReply, options: { title: string; csrf: string; error: unknown }) {
  const { status, body, unexpected } = errorResponse(options.error);
  if (unexpected) reply.log.error({ error: options.error }, UNEXPECTED_ERROR_LOG);
  return reply
    .status(status)
    .type('text/html')
    .send(
      page({
        title: options.title,
        csrf: options.csrf,
        body: `<div class="error">${escapeHtml(body.error.message)}</div>`,
      }),
    );
}

/** The 403 page of a session whose token lacks every scope of `scopes`. */
export function forbiddenPage(reply: FastifyReply, session: AdminSession, scopes: readonly string[]) {
  return reply
    .status(403)
    .type('text/html')
    .send(
      page({
        title: 'Forbidden',
        csrf: session.csrf,
        body: `<div class="error">The token <code>${escapeHtml(session.principal.name)}</code> lacks the scope ${scopes
          .map((scope) => `<code>${escapeHtml(scope)}</code>`)
          .join(' or ')} for this page.</div>`,
      }),
    );
}

/** The 403 `CSRF` answer of a form post, as a page. */
export function csrfFailure(reply: FastifyReply) {
  return reply
    .status(403)
    .type('text/html')
    .send(
      page({
        title: 'Forbidden',
        body: '<div class="error">The form expired or did not come from this site. Reload the page and try again.</div>',
      }),
    );
}

function loginPage(options: { next: string; error?: string }): string {
  return page({
    title: 'Log in',
    body: `<h1>Log in</h1>
${options.error ? `<div class="error">${escapeHtml(options.error)}</div>` : ''}
<form method="post" action="/admin/login" style="max-width:420px">
  <p><label for="token">API token (<code>AGENTQ_API_TOKEN</code>, printed by <code>agentq dev</code>)</label></p>
  <p><input id="token" name="token" type="password" autocomplete="current-password" required autofocus></p>
  <input type="hidden" name="next" value="${escapeHtml(options.next)}">
  <p><button type="submit" class="approve">Log in</button></p>
</form>`,
  });
}

/**
 * The inbox: every pending approval with its run, the MCP server the call goes to (wire names of
 * look-alike servers such as `github` and `github-` differ only in a hash), tool, arguments and a
 * decision form.
 */
export function inboxPage(options: {
  approvals: Awaited<ReturnType<AgentqClient['listPendingApprovals']>>;
  /** The section of unanswered elicitations (HTML), empty when there are none. */
  elicitations: string;
  csrf: string;
  /** The token name decisions from this page are recorded under. */
  who: string;
  notice?: string;
  /** The run the last decision woke, linked from the notice. */
  runId?: string;
  error?: string;
}): string {
  const rows = options.approvals
    .map(
      (approval) => `<tr data-approval-id="${escapeHtml(approval.approvalId)}">
  <td><a href="/admin/runs/${encodeURIComponent(approval.runId)}">${escapeHtml(approval.runId)}</a></td>
  <td class="server">${approval.serverId === undefined ? '<em>builtin</em>' : `<code>${escapeHtml(approval.serverId)}</code>`}</td>
  <td><code>${escapeHtml(approval.toolName)}</code></td>
  <td><pre>${escapeHtml(JSON.stringify(approval.input, null, 2) ?? 'null')}</pre></td>
  <td>${escapeHtml(formatTime(approval.requestedAt))}</td>
  <td>${escapeHtml(formatTime(approval.expiresAt))}</td>
  <td><form method="post" action="/admin/approvals/${encodeURIComponent(approval.approvalId)}/decision">
    <input type="hidden" name="_csrf" value="${escapeHtml(options.csrf)}">
    <p><input type="text" name="reason" placeholder="Reason (optional)" aria-label="Reason"></p>
    <button type="submit" name="decision" value="approve" class="approve">Approve</button>
    <button type="submit" name="decision" value="deny" class="deny">Deny</button>
  </form></td>
</tr>`,
    )
    .join('\n');
  return page({
    title: 'Approvals',
    csrf: options.csrf,
    body: `<h1>Pending approvals</h1>
<p class="who">Decisions are recorded as <strong id="decided-by">${escapeHtml(options.who)}</strong> via the inbox.</p>
${
  options.notice
    ? `<div class="notice" role="status">${escapeHtml(options.notice)}${
        options.runId
          ? ` · <a id="run-link" href="/admin/runs/${encodeURIComponent(options.runId)}">follow the run</a>`
          : ''
      }</div>`
    : ''
}
${options.error ? `<div class="error" role="alert">${escapeHtml(options.error)}</div>` : ''}
${
  options.approvals.length === 0
    ? '<p id="empty">Nothing is waiting for a decision.</p>'
    : `<table><thead><tr><th>Run</th><th>Server</th><th>Tool</th><th>Arguments</th><th>Requested</th><th>Expires</th><th>Decision</th></tr></thead><tbody>${rows}</tbody></table>`
}
${options.elicitations}
<p><a href="/admin/approvals">Refresh</a></p>`,
  });
}
