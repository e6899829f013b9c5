import { AgentqError, ERROR_CODES, ValidationError, type ErrorCode } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { errorResponse } from './error-response.js';

describe('errorResponse', () => {
  it('maps agentq codes to statuses and keeps the field', () => {
    const validation = new ValidationError({ what: 'body', issues: [{ field: 'spec.input', message: 'missing' }] });
    expect(errorResponse(validation)).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION', field: 'spec.input' } },
    });
    const cases: Array<[ErrorCode, number]> = [
      ['NOT_FOUND', 404],
      ['CONFLICT', 409],
      ['ALREADY_DECIDED', 409],
      ['EXPIRED', 410],
      ['UNAUTHORIZED', 401],
      ['INVALID_JSON', 400],
      ['IMPORT_INVALID', 400],
      ['CSRF', 403],
      ['FORBIDDEN', 403],
      ['URI_TOO_LONG', 414],
      ['UNSUPPORTED_MEDIA_TYPE', 415],
      ['PAYLOAD_TOO_LARGE', 413],
      ['RATE_LIMITED', 429],
      ['NOT_IMPLEMENTED', 501],
      ['UNAVAILABLE', 503],
    ];
    for (const [code, status] of cases) {
      expect(errorResponse(new AgentqError({ code, message: 'x' })).status).toBe(status);
    }
  });

  it.each(Object.keys(ERROR_CODES) as ErrorCode[])('answers %s with the status ERROR_CODES gives it', (code) => {
    const { status, body, unexpected } = errorResponse(new AgentqError({ code, message: 'said on purpose' }));
    expect(status).toBe(ERROR_CODES[code].status);
    expect(body.error).toEqual({ code, message: 'said on purpose' });
    expect(unexpected).toBeUndefined();
  });

  it('never leaks the message of an unexpected failure', () => {
    const { status, body } = errorResponse(new Error('secret internals'));
    expect(status).toBe(500);
    expect(body.error).toEqual({ code: 'INTERNAL', message: 'Internal error' });
  });

  it('answers an agentq error whose code is not in ERROR_CODES as a 500 bug, not a 400', () => {
    const stray = new AgentqError({ code: 'NOT_IN_THE_TABLE' as ErrorCode, message: 'internal detail' });
    const response = errorResponse(stray);
    expect(response).toMatchObject({ status: 500, unexpected: true, body: { error: { code: 'INTERNAL' } } });
    expect(JSON.stringify(response.body)).not.toContain('internal detail');
    expect(errorResponse(new Error('boom')).unexpected).toBe(true);
    expect(errorResponse(new AgentqError({ code: 'NOT_FOUND', message: 'x' })).unexpected).toBeUndefined();
  });

  it('reports an unreachable Redis as 503', () => {
    expect(errorResponse(new Error('Connection is closed.')).status).toBe(503);
  });
});
