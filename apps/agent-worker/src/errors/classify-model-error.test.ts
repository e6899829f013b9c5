import { AgentqError, NonRetryableError } from '@agentq/shared';
import { APICallError, InvalidPromptError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyModelError } from './classify-model-error.js';

function apiCallError(statusCode: number, isRetryable: boolean) {
  return new APICallError({
    message: 'nope',
    url: 'http://127.0.0.1/v1',
    requestBodyValues: {},
    statusCode,
    isRetryable,
  });
}

describe('classifyModelError', () => {
  it('turns a refused prompt into a NonRetryableError VALIDATION', () => {
    const refused = classifyModelError(new InvalidPromptError({ prompt: [], message: 'bad messages' }));
    expect(NonRetryableError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'VALIDATION' });
  });

  it('turns a provider 4xx that will not pass into MODEL_REJECTED, and leaves retryable answers alone', () => {
    expect(classifyModelError(apiCallError(400, false))).toMatchObject({ code: 'MODEL_REJECTED' });
    expect(NonRetryableError.isInstance(classifyModelError(apiCallError(401, false)))).toBe(true);
    const rateLimited = apiCallError(429, true);
    expect(classifyModelError(rateLimited)).toBe(rateLimited);
    const outage = apiCallError(503, false);
    expect(classifyModelError(outage)).toBe(outage);
  });

  it('returns anything else as it is', () => {
    const coded = new AgentqError({ code: 'LOCK_LOST', message: 'moved' });
    expect(classifyModelError(coded)).toBe(coded);
    const plain = new Error('ECONNRESET');
    expect(classifyModelError(plain)).toBe(plain);
  });
});
