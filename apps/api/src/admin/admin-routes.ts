import type { AgentqClient, RunInfo } from '@agentq/client';
import { AgentqError } from '@agentq/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  SESSION_COOKIE,
  SESSION_TTL_MS,
  createSession,
  csrfTokenFor,
  isValidCsrf,
  isValidSession,
} from '../auth/admin-session.js';
import { tokensMatch } from '../auth/token-check.js';
import { errorResponse } from '../http/error-response.js';
import { escapeHtml, formatTime, page } from './html.js';

/** Options of {@link registerAdminRoutes}. */
export interface AdminRoutesOptions {
  client: AgentqClient;
  apiToken: string;
}

const loginBody = z.object({ token: z.string().default(''), next: z.string().optional() });
const decisionForm = z.object({
  decision: z.enum(['approve', 'deny']),
  reason: z.string().max(2_000).optional(),
  _csrf: z.string().optional(),
});

function safeNext(next: string | undefined): string {
  // Only local admin paths: an open redirect after login would hand the session to a phishing page.
  return next && /^\/admin\/[A-Za-z0-9/_.?=&%-]*$/.test(next) && !next.startsWith('//') ? next : '/admin/approvals';
}

/** The session of a request, when valid. */
export function sessionOf(request: FastifyRequest, apiToken: string): string | undefined {
  const session = request.cookies[SESSION_COOKIE];
  return isValidSession(apiToken, session) ? session : undefined;
}

/**
 * The login form, the approvals inbox and a run page: server-rendered HTML, no front-end build.
 * Form posts carry a CSRF token bound to the session; the session cookie is HttpOnly and
 * SameSite=Strict.
 */
export function registerAdminRoutes(app: FastifyInstance, options: AdminRoutesOptions): void {
  const { client, apiToken } = options;

  const requireSession = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    const session = sessionOf(request, apiToken);
    if (!session) {
      void reply.redirect(`/admin/login?next=${encodeURIComponent(request.url)}`, 303);
      return undefined;
    }
    return session;
  };

  app.get('/admin', async (_request, reply) => reply.redirect('/admin/approvals', 303));

  app.get('/admin/login', async (request, reply) => {
    const next = safeNext((request.query as { next?: string }).next);
    return reply.type('text/html').send(loginPage({ next }));
  });

  app.post('/admin/login', async (request, reply) => {
    const parsed = loginBody.safeParse(request.body ?? {});
    const next = safeNext(parsed.success ? parsed.data.next : undefined);
    if (!parsed.success || !tokensMatch(parsed.data.token, apiToken)) {
      return reply
        .status(401)
        .type('text/html')
        .send(loginPage({ next, error: 'That token is not right.' }));
    }
    void reply.setCookie(SESSION_COOKIE, createSession(apiToken), {
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      path: '/admin',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return reply.redirect(next, 303);
  });

  app.post('/admin/logout', async (request, reply) => {
    const session = sessionOf(request, apiToken);
    const form = (request.body ?? {}) as { _csrf?: string };
    if (session && !isValidCsrf(apiToken, session, form._csrf)) return csrfFailure(reply);
    void reply.clearCookie(SESSION_COOKIE, { path: '/admin' });
    return reply.redirect('/admin/login', 303);
  });

  app.get('/admin/approvals', async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const query = request.query as { notice?: string; error?: string; run?: string };
    let approvals: Awaited<ReturnType<AgentqClient['listPendingApprovals']>> = [];
    let loadError: string | undefined;
    try {
      approvals = await client.listPendingApprovals();
    } catch (error) {
      loadError = errorResponse(error).body.error.message;
    }
    return reply.type('text/html').send(
      inboxPage({
        approvals,
        csrf: csrfTokenFor(apiToken, session),
        notice: query.notice,
        runId: query.run,
        error: query.error ?? loadError,
      }),
    );
  });

  app.post('/admin/approvals/:approvalId/decision', async (request, reply) => {
    const session = sessionOf(request, apiToken);
    if (!session) return reply.redirect('/admin/login', 303);
    const approvalId = (request.params as { approvalId: string }).approvalId;
    const form = decisionForm.safeParse(request.body ?? {});
    if (!form.success) return reply.redirect(`/admin/approvals?error=${encodeURIComponent('Invalid form')}`, 303);
    if (!isValidCsrf(apiToken, session, form.data._csrf)) return csrfFailure(reply);
    const approved = form.data.decision === 'approve';
    const reason = form.data.reason?.trim() || undefined;
    let runId: string | undefined;
    try {
      const pending = (await client.listPendingApprovals()).find((approval) => approval.approvalId === approvalId);
      runId = pending?.runId;
      await client.decide({ approvalId, approved, reason, decidedBy: 'inbox' });
    } catch (error) {
      const message = AgentqError.isInstance(error) ? `${error.code}: ${error.message}` : 'The decision failed';
      return reply.redirect(`/admin/approvals?error=${encodeURIComponent(message)}`, 303);
    }
    const notice = `${approved ? 'Approved' : 'Denied'} ${approvalId}${runId ? ` (run ${runId})` : ''}`;
    const runPart = runId ? `&run=${encodeURIComponent(runId)}` : '';
    return reply.redirect(`/admin/approvals?notice=${encodeURIComponent(notice)}${runPart}`, 303);
  });

  app.get('/admin/runs/:runId', async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const runId = (request.params as { runId: string }).runId;
    try {
      const run = await client.getRun(runId);
      return reply.type('text/html').send(runPage({ run, csrf: csrfTokenFor(apiToken, session) }));
    } catch (error) {
      const { status, body } = errorResponse(error);
      return reply
        .status(status)
        .type('text/html')
        .send(
          page({
            title: 'Run',
            csrf: csrfTokenFor(apiToken, session),
            body: `<div class="error">${escapeHtml(body.error.message)}</div>`,
          }),
        );
    }
  });
}

function csrfFailure(reply: FastifyReply) {
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

function inboxPage(options: {
  approvals: Awaited<ReturnType<AgentqClient['listPendingApprovals']>>;
  csrf: string;
  notice?: string;
  /** The run the last decision woke, linked from the notice. */
  runId?: string;
  error?: string;
}): string {
  const rows = options.approvals
    .map(
      (approval) => `<tr data-approval-id="${escapeHtml(approval.approvalId)}">
  <td><a href="/admin/runs/${encodeURIComponent(approval.runId)}">${escapeHtml(approval.runId)}</a></td>
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
    : `<table><thead><tr><th>Run</th><th>Tool</th><th>Arguments</th><th>Requested</th><th>Expires</th><th>Decision</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p><a href="/admin/approvals">Refresh</a></p>`,
  });
}

function runPage(options: { run: RunInfo; csrf: string }): string {
  const { run } = options;
  const done = run.state === 'completed' || run.state === 'failed';
  return page({
    title: `Run ${run.runId}`,
    csrf: options.csrf,
    refreshSeconds: done ? undefined : 2,
    body: `<h1>Run <code>${escapeHtml(run.runId)}</code></h1>
<p>State: <span class="state" id="run-state">${escapeHtml(run.state)}</span></p>
<p>Step: ${escapeHtml(run.progress.step ?? '—')} · Last tool: <code>${escapeHtml(run.progress.lastTool ?? '—')}</code></p>
${run.pendingApprovals.length > 0 ? `<p>Waiting for ${run.pendingApprovals.length} approval(s) in the <a href="/admin/approvals">inbox</a>.</p>` : ''}
${run.result ? `<h2>Result</h2><pre id="run-result">${escapeHtml(run.result.text)}</pre>` : ''}
${run.error ? `<h2>Error</h2><pre id="run-error">${escapeHtml(run.error.message)}</pre>` : ''}`,
  });
}
