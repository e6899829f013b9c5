import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NonRetryableError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { authFailureOf, recordAuthRefusals } from './auth-refusal.js';

const base = { serverId: 'linear', secretValues: ['tok_SECRET_1234'] };

describe('authFailureOf', () => {
  it('is MCP_AUTH_REQUIRED for a 401 or a 403 without OAuth error details', () => {
    for (const status of [401, 403] as const) {
      const failure = authFailureOf({
        ...base,
        error: new StreamableHTTPError(status, 'x'),
        refusal: { status, challenge: 'Bearer resource_metadata="https://a.example/.well-known/x"' },
      });
      expect(failure?.code).toBe('MCP_AUTH_REQUIRED');
    }
    expect(authFailureOf({ ...base, error: new UnauthorizedError(), refusal: undefined })?.code).toBe(
      'MCP_AUTH_REQUIRED',
    );
  });

  it('keeps the OAuth provider’s own MCP_AUTH_REQUIRED (a step-up) with its message', () => {
    const message = 'MCP server linear needs authorization with more scope (a b): run agentq servers authorize linear';
    const error = new NonRetryableError({ code: 'MCP_AUTH_REQUIRED', message });
    expect(authFailureOf({ ...base, error, refusal: undefined })).toEqual({ code: 'MCP_AUTH_REQUIRED', message });
    const other = new NonRetryableError({ code: 'VALIDATION', message: 'not an auth refusal' });
    expect(authFailureOf({ ...base, error: other, refusal: undefined })).toBeUndefined();
  });

  it('is MCP_AUTH_FAILED with the challenge or body error, secrets masked', () => {
    const fromChallenge = authFailureOf({
      ...base,
      error: new StreamableHTTPError(401, 'x'),
      refusal: {
        status: 401,
        challenge: 'Bearer realm="x", error="invalid_token", error_description="token tok_SECRET_1234 \\"expired\\""',
      },
    });
    expect(fromChallenge?.code).toBe('MCP_AUTH_FAILED');
    expect(fromChallenge?.message).toContain('invalid_token');
    expect(fromChallenge?.message).toContain('"expired"');
    expect(fromChallenge?.message).not.toContain('tok_SECRET_1234');

    const fromBody = authFailureOf({
      ...base,
      error: new StreamableHTTPError(403, 'x'),
      refusal: { status: 403, body: JSON.stringify({ error: 'insufficient_scope', error_description: 'needs repo' }) },
    });
    expect(fromBody?.code).toBe('MCP_AUTH_FAILED');
    expect(fromBody?.message).toContain('insufficient_scope');
  });

  it('ignores other statuses and errors whatever their text says', () => {
    expect(
      authFailureOf({ ...base, error: new StreamableHTTPError(404, '401 Unauthorized'), refusal: undefined }),
    ).toBe(undefined);
    expect(authFailureOf({ ...base, error: new Error('HTTP 401 Unauthorized'), refusal: undefined })).toBe(undefined);
  });

  it('records the challenge and body of the latest refusal', async () => {
    const recorder = recordAuthRefusals(
      async () =>
        new Response('{"error":"invalid_token"}', {
          status: 401,
          headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        }),
    );
    const response = await recorder.fetch('http://127.0.0.1/mcp');
    expect(await response.text()).toBe('{"error":"invalid_token"}');
    expect(recorder.latest()).toEqual({
      status: 401,
      challenge: 'Bearer error="invalid_token"',
      body: '{"error":"invalid_token"}',
    });
  });
});
