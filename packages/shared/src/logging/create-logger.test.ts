import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NonRetryableError } from '../errors/non-retryable-error.js';
import { createLogger, maskUrlCredentials, silentLogger } from './create-logger.js';

/** A pino destination that keeps every line in memory, parsed. */
function memoryDestination() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of String(chunk).split('\n')) {
        if (line.trim() === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  return { stream, lines, raw };
}

describe('createLogger redaction', () => {
  it('writes hidden characters of logged text as JSON escapes, keeping the value', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream });
    const error = 'server said \u009b2J\u202eexe.png\u200b';
    logger.child({ serverId: 'fx\u2066' }).warn({ error }, 'refresh failed \u00ad');
    expect(raw.join('\n')).not.toMatch(/[\u0080-\u009f\u00ad\u200b\u202e\u2066]/);
    expect(lines[0]).toMatchObject({ error, serverId: 'fx\u2066', msg: 'refresh failed \u00ad' });
  });

  it('masks authorization headers whatever their case', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream });
    logger.info({ request: { headers: { Authorization: 'Bearer abc.def', authorization: 'Basic xyz' } } }, 'call');
    expect(lines[0]).toMatchObject({
      request: { headers: { Authorization: '[redacted]', authorization: '[redacted]' } },
    });
    expect(raw.join('')).not.toContain('abc.def');
    expect(raw.join('')).not.toContain('xyz');
  });

  it('masks string values under keys containing token, secret or key, and keeps numbers and booleans', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream });
    logger.info({
      apiToken: 't0k3n-value',
      clientSecret: 's3cr3t-value',
      OPENAI_API_KEY: 'sk-live-value',
      nested: { accessToken: 'nested-token-value' },
      toolCount: 3,
      tokenized: true,
      serverId: 'github',
    });
    const line = lines[0]!;
    expect(line).toMatchObject({
      apiToken: '[redacted]',
      clientSecret: '[redacted]',
      OPENAI_API_KEY: '[redacted]',
      nested: { accessToken: '[redacted]' },
      toolCount: 3,
      tokenized: true,
      serverId: 'github',
    });
    for (const secret of ['t0k3n-value', 's3cr3t-value', 'sk-live-value', 'nested-token-value']) {
      expect(raw.join('')).not.toContain(secret);
    }
  });

  it('masks credentials inside URLs but keeps the rest of the URL', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream });
    logger.info(
      { redisUrl: 'redis://admin:hunter2pass@redis.internal:6379/0' },
      'connect to https://bob:pw-in-msg@example.com/x',
    );
    expect(lines[0]!.redisUrl).toBe('redis://admin:[redacted]@redis.internal:6379/0');
    expect(lines[0]!.msg).toBe('connect to https://bob:[redacted]@example.com/x');
    expect(raw.join('')).not.toContain('hunter2pass');
    expect(raw.join('')).not.toContain('pw-in-msg');
  });

  it('masks a password that holds @ or : whole, and leaves URLs without one as they are', () => {
    expect(maskUrlCredentials('redis://user:p@ssw0rdSECRET@127.0.0.1:1/0')).toBe(
      'redis://user:[redacted]@127.0.0.1:1/0',
    );
    expect(maskUrlCredentials('a@b:c@host and x+y://:pa:ss@h/p?q')).toBe('a@b:c@host and x+y://:[redacted]@h/p?q');
    expect(maskUrlCredentials('u://a@b:c@host/')).toBe('u://a@b:[redacted]@host/');
    expect(maskUrlCredentials('redis://:pa#ss@h:6379 and https://u:pa?ss@h/x')).toBe(
      'redis://:[redacted]@h:6379 and https://u:[redacted]@h/x',
    );
    expect(maskUrlCredentials('two: http://a:1@x/ then https://b:2@y:8080')).toBe(
      'two: http://a:[redacted]@x/ then https://b:[redacted]@y:8080',
    );
    for (const plain of ['https://user@host:8080/x', 'http://host:80/a:b@c', 'see :// here', '://a:b@c', 'x://a:@h']) {
      expect(maskUrlCredentials(plain)).toBe(plain);
    }
  });

  // A model chooses some logged strings (an unknown tool's name). A pattern with a quadratic worst
  // case took 17 s on 80 000 characters of `a.a.a.`; one pass takes well under a millisecond, so
  // finishing within the test's timeout at all is the assertion here.
  it('scrubs a long adversarial line in one pass', () => {
    const { stream, lines } = memoryDestination();
    const logger = createLogger({ destination: stream });
    const name = 'a.'.repeat(400_000);
    logger.warn({ toolName: name }, `unknown tool ${'a:'.repeat(200_000)}://${'b:'.repeat(200_000)}`);
    expect(lines[0]!.toolName).toBe(name);
    const many = maskUrlCredentials(`${'x://a:b'.repeat(100_000)}@h`);
    expect(many.endsWith('x://a:b' + 'x://a:[redacted]@h')).toBe(true);
    expect(many.length).toBe(7 * 100_000 + 2 - 1 + '[redacted]'.length);
  });

  it('masks registered secret values in objects, arrays, message text, format arguments and errors', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream, secretValues: ['resolved-env-value'] });
    logger.secrets.add(['added-later-value']);
    logger.info(
      { args: ['--flag', 'resolved-env-value'], note: 'has added-later-value inside' },
      'sent resolved-env-value',
    );
    (logger as unknown as { info(format: string, ...values: unknown[]): void }).info('format %s', 'added-later-value');
    logger.error({ err: new Error('failed with resolved-env-value') }, 'boom');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      args: ['--flag', '[redacted]'],
      note: 'has [redacted] inside',
      msg: 'sent [redacted]',
    });
    expect(lines[1]!.msg).toBe('format [redacted]');
    expect(JSON.stringify(lines[2])).toContain('failed with [redacted]');
    expect(raw.join('')).not.toContain('resolved-env-value');
    expect(raw.join('')).not.toContain('added-later-value');
  });

  it('logs errors with their class, code, field and cause, scrubbed', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream, secretValues: ['error-secret-value'] });
    const error = new NonRetryableError({
      code: 'SECRET_MISSING',
      field: 'transport.url',
      message: 'cannot use error-secret-value',
      cause: new Error('inner error-secret-value'),
    });
    logger.error({ err: error }, 'failed');
    logger.error({ error }, 'failed again');
    for (const line of lines) {
      const logged = (line.err ?? line.error) as Record<string, unknown>;
      expect(logged).toMatchObject({
        type: 'NonRetryableError',
        code: 'SECRET_MISSING',
        field: 'transport.url',
        message: 'cannot use [redacted]',
        cause: { type: 'Error', message: 'inner [redacted]' },
      });
    }
    expect(raw.join('')).not.toContain('error-secret-value');
  });

  it('masks secrets in child logger bindings too', () => {
    const { stream, lines, raw } = memoryDestination();
    const logger = createLogger({ destination: stream, secretValues: ['bound-secret-value'] });
    const child = logger
      .child({ component: 'warmer', apiToken: 'child-token-value', url: 'https://user:child-pw@host/mcp' })
      .child({ serverId: 'github', note: 'bound-secret-value' });
    child.info('hello');
    expect(lines[0]).toMatchObject({
      component: 'warmer',
      apiToken: '[redacted]',
      url: 'https://user:[redacted]@host/mcp',
      serverId: 'github',
      note: '[redacted]',
    });
    for (const secret of ['child-token-value', 'child-pw', 'bound-secret-value']) {
      expect(raw.join('')).not.toContain(secret);
    }
  });

  it('honours the level and the name', () => {
    const { stream, lines } = memoryDestination();
    const logger = createLogger({ destination: stream, level: 'warn', name: 'worker' });
    logger.info('dropped');
    logger.warn('kept');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'kept', name: 'worker' });
  });

  it('silentLogger accepts calls and children without output', () => {
    const logger = silentLogger();
    expect(() => logger.child({ component: 'x' }).error({ a: 1 }, 'nothing')).not.toThrow();
  });
});
