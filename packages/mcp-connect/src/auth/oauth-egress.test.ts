import { describe, expect, it } from 'vitest';
import { SUBSTITUTED_TOKEN_ANSWER, withOAuthEgress } from './oauth-egress.js';

/** An upstream that answers every request with `body` and `status`, and records what it saw. */
function upstream(body: string, status = 200) {
  const seen: string[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

function egressOver(fetch: typeof globalThis.fetch) {
  return withOAuthEgress({
    fetch,
    serverUrl: 'https://mcp.example.com/mcp',
    headerSecrets: [],
    client: { id: 'c' },
    label: 'MCP server srv',
  });
}

const tokenRequest = {
  method: 'POST',
  body: new URLSearchParams({ grant_type: 'client_credentials' }),
};

describe('withOAuthEgress token answers', () => {
  it('turns a 200 token answer that is not a JSON object into a 502 that quotes none of it', async () => {
    for (const garbled of ['NEWTOKEN-abcdef-123456', '["NEWTOKEN-abcdef-123456"]', '"NEWTOKEN-abcdef-123456"']) {
      const answer = await egressOver(upstream(garbled).fetch)('https://as.example.com/token', tokenRequest);
      expect(answer.status).toBe(502);
      expect(answer.headers.get(SUBSTITUTED_TOKEN_ANSWER)).toBe('200');
      const text = await answer.text();
      expect(JSON.parse(text)).toMatchObject({ error: 'server_error' });
      expect(text).not.toContain('NEWTOKEN');
    }
  });

  it('passes a JSON token answer on as it came, and leaves other requests alone', async () => {
    const token = JSON.stringify({ access_token: 'at-1', token_type: 'Bearer' });
    const answer = await egressOver(upstream(token).fetch)('https://as.example.com/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=rt-1',
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ access_token: 'at-1', token_type: 'Bearer' });
    // An MCP request (JSON-RPC over POST) whose answer is an event stream is no token request.
    const stream = 'event: message\ndata: {}\n\n';
    // Even one whose JSON text parses as a form with a grant_type.
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: { q: 'a&grant_type=x' } } };
    const mcp = await egressOver(upstream(stream).fetch)('https://mcp.example.com/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    expect(await mcp.text()).toBe(stream);
  });
});
