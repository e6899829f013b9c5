import { expect } from 'vitest';

/** Logs in at `/admin/login` and returns the session cookie (`name=value`). */
export async function adminLogin(url: string, token: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token, next: '/admin/approvals' }).toString(),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  await response.arrayBuffer();
  const setCookie = response.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/^agentq_session=/);
  return setCookie.split(';')[0] as string;
}

/** The CSRF token the inbox page hands its forms. */
export async function inboxCsrf(url: string, cookie: string): Promise<string> {
  const response = await fetch(`${url}/admin/approvals`, { headers: { cookie }, redirect: 'manual' });
  expect(response.status).toBe(200);
  const match = /name="_csrf" value="([^"]+)"/.exec(await response.text());
  expect(match).not.toBeNull();
  return match?.[1] as string;
}

/** A request with only the session cookie, as a cross-site page would send it. */
export async function withCookie(
  url: string,
  options: { method: string; path: string; cookie: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { cookie: options.cookie, ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${options.path}`, {
    method: options.method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // an HTML page
  }
  return { status: response.status, body };
}

/** A pending approval request for `registerApprovalRequests`: an hour to decide, nothing decided. */
export function pendingApproval(approvalId: string, runId = 'run-1') {
  return {
    approvalId,
    runId,
    toolCallId: `call-${approvalId}`,
    toolName: 'mcp__fx__delete',
    input: { id: 1 },
    argsDigest: 'a',
    schemaDigest: 's',
    requestedAt: Date.now(),
    expiresAt: Date.now() + 3_600_000,
  };
}
