import { serverDefinitionSchema } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { definitionFromOptions } from './servers-command.js';

describe('definitionFromOptions', () => {
  it('builds stdio and HTTP definitions that pass the shared schema', () => {
    const stdio = definitionFromOptions('files', {
      command: 'npx',
      arg: ['-y', 'pkg'],
      env: ['TOKEN=${GH_TOKEN}'],
      alwaysAsk: ['write'],
    });
    expect(serverDefinitionSchema.parse(stdio).transport).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'pkg'],
      env: { TOKEN: '${GH_TOKEN}' },
    });
    const sse = definitionFromOptions('remote', {
      url: 'https://example.test/sse',
      sse: true,
      header: ['Authorization=Bearer ${KEY}'],
    });
    expect(serverDefinitionSchema.parse(sse).transport).toMatchObject({
      type: 'sse',
      headers: { Authorization: 'Bearer ${KEY}' },
    });
  });

  it('needs exactly one transport and well-formed pairs', () => {
    expect(() => definitionFromOptions('x', {})).toThrow(/exactly one/);
    expect(() => definitionFromOptions('x', { command: 'a', url: 'http://b' })).toThrow(/exactly one/);
    expect(() => definitionFromOptions('x', { command: 'a', env: ['NOEQUALS'] })).toThrow(/NAME=value/);
  });
});
