import { PassThrough } from 'node:stream';
import { silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { STDERR_CAP, StderrCapture } from './stderr-capture.js';

describe('StderrCapture', () => {
  it('keeps only the last STDERR_CAP characters of a chatty server', async () => {
    const capture = new StderrCapture(silentLogger());
    const stream = new PassThrough();
    capture.attach(stream);
    for (let index = 0; index < 50; index += 1) stream.write(`${'x'.repeat(200)}\n`);
    stream.write('last words');
    stream.end();
    await new Promise((resolve) => stream.once('end', resolve).resume());
    expect(capture.tail().length).toBeLessThanOrEqual(STDERR_CAP);
    expect(capture.tail().endsWith('last words')).toBe(true);
  });

  it('is empty without a stream', () => {
    const capture = new StderrCapture(silentLogger());
    capture.attach(null);
    expect(capture.tail()).toBe('');
  });
});
