import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { digestOf } from '../json/canonical-json.js';
import { catalogEntrySchema } from './catalog.js';
import { runSpecSchema } from './run-spec.js';

// Inputs written by hand, in the shapes the architecture document gives, must be accepted.
describe('hand-written inputs', () => {
  it('accepts a catalog entry without a version and derives it from the tools', () => {
    const tools = [{ name: 'echo', inputSchema: { type: 'object' as const } }];
    const entry = catalogEntrySchema.parse({ tools, definitionHash: 'abc', refreshedAt: 1, state: 'connected' });
    expect(entry.version).toBe(digestOf(tools));
    const other = catalogEntrySchema.parse({
      tools: [{ name: 'echo2', inputSchema: { type: 'object' } }],
      definitionHash: 'abc',
      refreshedAt: 1,
      state: 'connected',
    });
    expect(other.version).not.toBe(entry.version);
  });

  it('drops unknown tool fields instead of rejecting the whole entry', () => {
    const entry = catalogEntrySchema.parse({
      tools: [{ name: 'echo', inputSchema: { type: 'object' }, _meta: { x: 1 }, icons: [] }],
      definitionHash: 'abc',
      refreshedAt: 1,
      state: 'connected',
      version: 'v1',
    });
    expect(entry.tools[0]).toEqual({ name: 'echo', inputSchema: { type: 'object' } });
    expect(entry.version).toBe('v1');
  });

  it('still rejects a tool whose input schema is not an object schema', () => {
    const parsed = catalogEntrySchema.safeParse({
      tools: [{ name: 'bad', inputSchema: { type: 'string' } }],
      definitionHash: 'abc',
      refreshedAt: 1,
      state: 'connected',
    });
    expect(parsed.success).toBe(false);
  });

  it('moves a top-level scripted-model script into the assistant', () => {
    const spec = runSpecSchema.parse({
      assistant: { model: 'scripted:test' },
      input: { prompt: 'hi' },
      script: [{ text: 'hello' }],
    });
    expect(spec.assistant.script).toEqual([{ text: 'hello' }]);
    expect('script' in spec).toBe(false);
  });

  it('rejects a script given twice, and a scripted model with none', () => {
    const twice = runSpecSchema.safeParse({
      assistant: { model: 'scripted:test', script: [{ text: 'a' }] },
      input: { prompt: 'hi' },
      script: [{ text: 'b' }],
    });
    expect(twice.success).toBe(false);
    const none = runSpecSchema.safeParse({ assistant: { model: 'scripted:test' }, input: { prompt: 'hi' } });
    expect(none.success).toBe(false);
    expect(none.error?.issues[0]?.path).toEqual(['assistant', 'script']);
  });

  it('gives the key prefix to use, hash-tagged in cluster mode', () => {
    expect(loadConfig({}).keyPrefix).toBe('agentq');
    expect(loadConfig({ AGENTQ_PREFIX: 'jobs', AGENTQ_REDIS_CLUSTER: 'true' }).keyPrefix).toBe('{jobs}');
  });
});
