import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { csrfTokenFor, type AdminSession } from '../auth/admin-session-store.js';
import { isSameOrigin, passesCsrf } from './admin-guard.js';

function request(options: {
  method?: string;
  origin?: string;
  host?: string;
  protocol?: string;
  csrf?: string;
  body?: unknown;
}) {
  const headers: Record<string, string> = {};
  if (options.origin !== undefined) headers.origin = options.origin;
  if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf;
  return {
    method: options.method ?? 'POST',
    headers,
    host: options.host ?? '127.0.0.1:3000',
    protocol: options.protocol ?? 'http',
    body: options.body,
  } as unknown as FastifyRequest;
}

const id = 'a'.repeat(43);
const session: AdminSession = { id, csrf: csrfTokenFor(id), principal: { name: 'default', scopes: new Set() } };
const auth = { principal: session.principal, session };

describe('admin guard', () => {
  it('compares Origin by scheme, host and port', () => {
    expect(isSameOrigin(request({}))).toBeUndefined();
    expect(isSameOrigin(request({ origin: 'http://127.0.0.1:3000' }))).toBe(true);
    expect(isSameOrigin(request({ origin: 'https://127.0.0.1:3000' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'http://127.0.0.1:3001' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'http://evil.example' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'null' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'http://example.com', host: 'example.com:80' }))).toBe(true);
  });

  it('lets a session change something only from this origin or with its token', () => {
    expect(passesCsrf(request({ method: 'GET' }), auth)).toBe(true);
    expect(passesCsrf(request({}), auth)).toBe(false);
    expect(passesCsrf(request({ origin: 'http://127.0.0.1:3000' }), auth)).toBe(true);
    expect(passesCsrf(request({ csrf: session.csrf }), auth)).toBe(true);
    expect(passesCsrf(request({ body: { _csrf: session.csrf } }), auth)).toBe(true);
    expect(passesCsrf(request({ csrf: csrfTokenFor('b'.repeat(43)) }), auth)).toBe(false);
    expect(passesCsrf(request({ origin: 'null', csrf: session.csrf }), auth)).toBe(false);
    expect(passesCsrf(request({ origin: 'http://evil.example', csrf: session.csrf }), auth)).toBe(false);
    // A bearer header is not ambient authority: no CSRF to defend against.
    expect(passesCsrf(request({}), { principal: session.principal })).toBe(true);
  });
});
