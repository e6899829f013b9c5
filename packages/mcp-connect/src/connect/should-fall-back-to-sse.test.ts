import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { shouldFallBackToSse } from './should-fall-back-to-sse.js';

describe('shouldFallBackToSse', () => {
  it('falls back when the first POST is refused as an old server refuses it', () => {
    for (const status of [400, 404, 405]) {
      expect(shouldFallBackToSse(new StreamableHTTPError(status, 'refused'))).toBe(true);
    }
  });

  it('does not fall back on auth refusals, server errors, or errors without a status', () => {
    for (const status of [401, 403, 500, 502, 302]) {
      expect(shouldFallBackToSse(new StreamableHTTPError(status, 'no'))).toBe(false);
    }
    expect(shouldFallBackToSse(new StreamableHTTPError(undefined, 'no status'))).toBe(false);
    expect(shouldFallBackToSse(new TypeError('fetch failed'))).toBe(false);
    expect(shouldFallBackToSse(new McpError(ErrorCode.RequestTimeout, 'timed out'))).toBe(false);
    expect(shouldFallBackToSse(undefined)).toBe(false);
  });
});
