import { describe, expect, it } from 'vitest';
import { SESSION_TTL_MS, createSession, csrfTokenFor, isValidCsrf, isValidSession } from './admin-session.js';
import { bearerToken, tokensMatch } from './token-check.js';

const token = 'a-test-token-of-some-length';

describe('admin sessions', () => {
  it('accepts its own sessions and rejects tampered, foreign or expired ones', () => {
    const now = Date.now();
    const session = createSession(token, now);
    expect(isValidSession(token, session, now)).toBe(true);
    expect(isValidSession('another-token-of-some-length', session, now)).toBe(false);
    expect(
      isValidSession(
        token,
        session.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        now,
      ),
    ).toBe(false);
    expect(isValidSession(token, `${now + 1}${session.slice(String(now).length)}`, now)).toBe(false);
    expect(isValidSession(token, session, now + SESSION_TTL_MS + 1)).toBe(false);
    expect(isValidSession(token, undefined, now)).toBe(false);
    expect(isValidSession(token, 'garbage', now)).toBe(false);
  });

  it('binds CSRF tokens to one session', () => {
    const first = createSession(token);
    const second = createSession(token);
    expect(isValidCsrf(token, first, csrfTokenFor(token, first))).toBe(true);
    expect(isValidCsrf(token, second, csrfTokenFor(token, first))).toBe(false);
    expect(isValidCsrf(token, first, undefined)).toBe(false);
  });
});

describe('token checks', () => {
  it('compares tokens of any length without throwing', () => {
    expect(tokensMatch(token, token)).toBe(true);
    expect(tokensMatch('short', token)).toBe(false);
    expect(tokensMatch('', token)).toBe(false);
  });

  it('reads bearer headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
