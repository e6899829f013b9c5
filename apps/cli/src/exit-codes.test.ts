import { AgentqError, ERROR_CODES, ValidationError, type ErrorCode } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeFor, isRedisDown } from './exit-codes.js';
import { describeError } from './output/describe-error.js';

describe('exit codes and error lines', () => {
  it('maps error codes to exit codes', () => {
    expect(exitCodeFor(new AgentqError({ code: 'NOT_FOUND', message: 'x' }))).toBe(EXIT_CODES.notFound);
    expect(exitCodeFor(new AgentqError({ code: 'ALREADY_DECIDED', message: 'x' }))).toBe(EXIT_CODES.conflict);
    expect(exitCodeFor(new ValidationError({ what: 'x', issues: [{ field: 'a', message: 'b' }] }))).toBe(
      EXIT_CODES.usage,
    );
    expect(exitCodeFor(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(EXIT_CODES.unavailable);
    expect(exitCodeFor(new Error('boom'))).toBe(EXIT_CODES.failed);
  });

  it('recognises Redis being down by the code of the error, and by ioredis messages otherwise', () => {
    expect(isRedisDown(new AgentqError({ code: 'UNAVAILABLE', message: 'Redis did not become ready' }))).toBe(true);
    expect(isRedisDown(new AgentqError({ code: 'NOT_FOUND', message: 'Connection is closed' }))).toBe(false);
    expect(isRedisDown(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisDown(new Error('boom'))).toBe(false);
  });

  it('takes a network failure for Redis down only when it is about the Redis it connects to', () => {
    const system = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
    const redis = { redisUrl: 'redis://:secret@cache.internal:6380/0' };
    const refused = system('connect ECONNREFUSED 10.0.0.5:6380', { syscall: 'connect', port: 6380 });
    const lookup = system('getaddrinfo ENOTFOUND cache.internal', {
      syscall: 'getaddrinfo',
      hostname: 'cache.internal',
    });
    expect(isRedisDown(refused, redis)).toBe(true);
    expect(isRedisDown(lookup, redis)).toBe(true);
    expect(isRedisDown(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(true);
    // A mistyped listen host, an MCP server, the API: something else that cannot be reached.
    const listen = system('getaddrinfo ENOTFOUND locahost', { syscall: 'getaddrinfo', hostname: 'locahost' });
    expect(isRedisDown(listen, redis)).toBe(false);
    expect(isRedisDown(listen)).toBe(false);
    expect(isRedisDown(new Error('connect ECONNREFUSED 127.0.0.1:3000'), redis)).toBe(false);
    expect(
      isRedisDown(system('listen EADDRINUSE: address already in use 127.0.0.1:6380', { syscall: 'listen' }), redis),
    ).toBe(false);
    expect(exitCodeFor(listen, redis)).toBe(EXIT_CODES.failed);
    expect(describeError(listen, redis)).toBe('error: getaddrinfo ENOTFOUND locahost');
    // Every node of a cluster counts.
    const cluster = { redisUrl: 'redis+cluster://a.internal:7000,b.internal:7001' };
    expect(isRedisDown(system('getaddrinfo ENOTFOUND b.internal', {}), cluster)).toBe(true);
    // A password may hold `@`: the host is after the last one, as the connection reads it.
    const atInPassword = { redisUrl: 'redis://u:p@ss@cache.internal:6379' };
    expect(isRedisDown(system('getaddrinfo ENOTFOUND cache.internal', {}), atInPassword)).toBe(true);
    const clusterAt = { redisUrl: 'redis+cluster://u:p@ss@a.internal:7000,b.internal:7001' };
    expect(isRedisDown(system('getaddrinfo ENOTFOUND a.internal', {}), clusterAt)).toBe(true);
    expect(isRedisDown(new Error('connect ECONNREFUSED 10.0.0.9:7002'), { clusterNodes: 'c.internal:7002' })).toBe(
      true,
    );
  });

  it('reports a listener that cannot listen as such, not as Redis down', () => {
    const error = new AgentqError({
      code: 'LISTEN_FAILED',
      message:
        'the agent-worker health listener cannot listen on locahost:0: the host name does not resolve (getaddrinfo ENOTFOUND locahost); check AGENTQ_HEALTH_HOST and AGENTQ_WORKER_HEALTH_PORT',
    });
    expect(isRedisDown(error)).toBe(false);
    expect(exitCodeFor(error)).toBe(EXIT_CODES.usage);
    expect(describeError(error)).toMatch(
      /^error \[LISTEN_FAILED\]: the agent-worker health listener .*AGENTQ_HEALTH_HOST/,
    );
  });

  it.each(Object.keys(ERROR_CODES) as ErrorCode[])('exits with the code ERROR_CODES gives %s', (code) => {
    expect(exitCodeFor(new AgentqError({ code, message: 'x' }))).toBe(ERROR_CODES[code].exitCode);
  });

  it('keeps the exit codes scripts rely on', () => {
    const expected: Array<[ErrorCode, number]> = [
      ['VALIDATION', 2],
      ['CONFIG_INVALID', 2],
      ['USAGE', 2],
      ['FORBIDDEN', 2],
      ['NOT_FOUND', 3],
      ['CONFLICT', 4],
      ['ALREADY_DECIDED', 4],
      ['EXPIRED', 4],
      ['UNAVAILABLE', 5],
      ['REDIS_UNAVAILABLE', 5],
      ['TIMEOUT', 6],
      ['RUN_FAILED', 1],
    ];
    for (const [code, exitCode] of expected)
      expect(exitCodeFor(new AgentqError({ code, message: 'x' }))).toBe(exitCode);
    expect(exitCodeFor(new AgentqError({ code: 'NOT_IN_THE_TABLE' as ErrorCode, message: 'x' }))).toBe(
      EXIT_CODES.failed,
    );
  });

  it('prints code and field on one line, every field of a multi-field error, and never a stack', () => {
    expect(describeError(new AgentqError({ code: 'NOT_FOUND', message: 'No server x', field: 'serverId' }))).toBe(
      'error [NOT_FOUND]: No server x (field: serverId)',
    );
    const many = describeError(
      new ValidationError({
        what: 'configuration',
        code: 'CONFIG_INVALID',
        issues: [
          { field: 'A', message: 'bad' },
          { field: 'B', message: 'worse' },
        ],
      }),
    );
    expect(many).toContain('  - A: bad');
    expect(many).toContain('  - B: worse');
    expect(describeError(new Error('boom'))).not.toContain(' at ');
    expect(describeError(new Error('ECONNREFUSED'), { redisUrl: 'redis://user:secret@host:6379' })).not.toContain(
      'secret',
    );
  });

  it("names the Redis it could not reach, whether the client or agentq's own wait gave up", () => {
    for (const error of [
      new Error('connect ECONNREFUSED 127.0.0.1:6390'),
      new AgentqError({ code: 'UNAVAILABLE', message: 'Redis did not become ready within 3000 ms' }),
    ]) {
      const text = describeError(error, { redisUrl: 'redis://user:secret@cache.internal:6390' });
      expect(text).toMatch(/^error \[REDIS_UNAVAILABLE\]: cannot reach Redis at redis:\/\/.*cache\.internal:6390/);
      expect(text).not.toContain('secret');
    }
  });

  it('names the Redis and prefix it looked in when a run or approval is not found', () => {
    for (const field of ['runId', 'approvalId']) {
      const text = describeError(new AgentqError({ code: 'NOT_FOUND', message: 'gone', field }), {
        redisUrl: 'redis://user:secret@10.0.0.5:6380',
        prefix: 'team',
      });
      expect(text.split('\n')[0]).toBe(`error [NOT_FOUND]: gone (field: ${field})`);
      expect(text).toContain('redis://user:***@10.0.0.5:6380');
      expect(text).toContain('prefix team');
      expect(text).not.toContain('secret');
    }
    // Unset: the defaults the CLI used.
    expect(describeError(new AgentqError({ code: 'NOT_FOUND', message: 'gone', field: 'runId' }))).toContain(
      'redis://127.0.0.1:6379',
    );
  });
});
