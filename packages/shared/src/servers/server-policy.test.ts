import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { serverDefinitionSchema, type ServerDefinitionInput } from '../schemas/server-definition.js';
import { hostMatchesPattern, secretPolicyFromEnv } from './secret-policy.js';
import { checkServerDefinition, serverPolicyFromEnv, type ServerOrigin } from './server-policy.js';

function codeOf(input: ServerDefinitionInput, origin: ServerOrigin, env: Record<string, string> = {}) {
  try {
    checkServerDefinition(serverDefinitionSchema.parse(input), { origin, policy: serverPolicyFromEnv(env) });
    return 'ok';
  } catch (error) {
    if (AgentqError.isInstance(error)) return `${error.code} ${error.field}`;
    throw error;
  }
}

const stdio = { id: 's', transport: { type: 'stdio', command: 'mcp-server-memory' } } as const;
const http = (url: string, headers: Record<string, string> = {}): ServerDefinitionInput => ({
  id: 'h',
  transport: { type: 'streamable-http', url, headers },
});

describe('checkServerDefinition', () => {
  it('refuses stdio from the API unless allowed, by flag or exact command', () => {
    expect(codeOf(stdio, 'api')).toBe('FORBIDDEN transport.command');
    expect(codeOf(stdio, 'operator')).toBe('ok');
    expect(codeOf(stdio, 'api', { AGENTQ_ALLOW_STDIO_FROM_API: 'true' })).toBe('ok');
    expect(codeOf(stdio, 'api', { AGENTQ_STDIO_COMMANDS: 'other, mcp-server-memory' })).toBe('ok');
    expect(codeOf(stdio, 'api', { AGENTQ_STDIO_COMMANDS: 'node_modules/.bin/mcp-server-memory' })).toBe(
      'FORBIDDEN transport.command',
    );
  });

  it('lets the API give a listed command its arguments and secrets, never an environment or working directory', () => {
    const listed = { AGENTQ_STDIO_COMMANDS: 'mcp-server-memory', AGENTQ_SECRET_HOSTS: 'TOKEN=api.example.com' };
    const withTransport = (extra: object): ServerDefinitionInput => ({
      id: 's',
      transport: { type: 'stdio', command: 'mcp-server-memory', args: ['--any', 'thing'], ...extra },
    });
    expect(codeOf(withTransport({ env: { TOKEN: '${AGENTQ_SECRET_TOKEN}' } }), 'api', listed)).toBe('ok');
    // Each of these would make the allowed program run the caller's code.
    for (const [key, value] of [
      ['NODE_OPTIONS', '--import=data:text/javascript,process.exit(7)'],
      ['LD_PRELOAD', '/tmp/evil.so'],
      ['PATH', '/tmp/evil'],
      ['npm_config_registry', 'http://127.0.0.1:1/'],
      ['HARMLESS_LOOKING', 'plain value'],
      ['MIXED', 'prefix-${AGENTQ_SECRET_TOKEN}'],
    ]) {
      expect(codeOf(withTransport({ env: { [key as string]: value } }), 'api', listed)).toBe(
        `FORBIDDEN transport.env.${key}`,
      );
    }
    expect(codeOf(withTransport({ cwd: '/tmp' }), 'api', listed)).toBe('FORBIDDEN transport.cwd');
    // The operator's paths keep both.
    const chosen = withTransport({ env: { NODE_OPTIONS: '--max-old-space-size=256' }, cwd: '/srv' });
    expect(codeOf(chosen, 'operator', listed)).toBe('ok');
    expect(codeOf(chosen, 'api', { ...listed, AGENTQ_ALLOW_STDIO_FROM_API: 'true' })).toBe('ok');
  });

  it('refuses settings, provider keys and unlisted names from every origin', () => {
    const env = { AGENTQ_SECRET_NAMES: 'LISTED,OPENAI_API_KEY,REDIS_URL' };
    for (const name of [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'AGENTQ_API_TOKEN',
      'REDIS_URL',
      'AGENTQ_SECRET_HOSTS',
      'HOME',
    ]) {
      expect(codeOf(http(`https://x.example/?k=\${${name}}`), 'operator', env), name).toBe('VALIDATION transport.url');
    }
    expect(codeOf(http('https://x.example/?k=${LISTED}'), 'operator', env)).toBe('ok');
    expect(codeOf(http('https://x.example/?k=${AGENTQ_SECRET_X}'), 'operator')).toBe('ok');
  });

  it('lets the API use only bound secrets, and only towards their hosts', () => {
    const env = { AGENTQ_SECRET_HOSTS: 'GH=api.github.com' };
    const header = { Authorization: 'Bearer ${AGENTQ_SECRET_GH}' };
    expect(codeOf(http('https://api.github.com/mcp', header), 'api', env)).toBe('ok');
    expect(codeOf(http('https://evil.example/mcp', header), 'api', env)).toBe(
      'VALIDATION transport.headers.Authorization',
    );
    expect(codeOf(http('https://evil.example/mcp', { A: '${AGENTQ_SECRET_OTHER}' }), 'api', env)).toBe(
      'VALIDATION transport.headers.A',
    );
    expect(codeOf(http('https://evil.example/mcp', { A: '${AGENTQ_SECRET_OTHER}' }), 'operator', env)).toBe('ok');
  });
});

describe('secretPolicyFromEnv', () => {
  it('binds the full name or the suffix, and refuses a name bound twice', () => {
    const policy = secretPolicyFromEnv({
      AGENTQ_SECRET_NAMES: 'SLACK',
      AGENTQ_SECRET_HOSTS: 'GITHUB_TOKEN=api.github.com;AGENTQ_SECRET_B=b.example;SLACK=*.slack.com',
    });
    expect(policy.hosts.get('AGENTQ_SECRET_GITHUB_TOKEN')).toEqual(['api.github.com']);
    expect(policy.hosts.get('AGENTQ_SECRET_B')).toEqual(['b.example']);
    expect(policy.hosts.get('SLACK')).toEqual(['*.slack.com']);
    expect(policy.hosts.get('AGENTQ_SECRET_SLACK')).toEqual(['*.slack.com']);
    expect(() => secretPolicyFromEnv({ AGENTQ_SECRET_HOSTS: 'A=x.example;AGENTQ_SECRET_A=y.example' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => secretPolicyFromEnv({ AGENTQ_SECRET_HOSTS: 'A' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => secretPolicyFromEnv({ AGENTQ_SECRET_HOSTS: 'A=ex ample' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('matches hosts exactly or by a *. suffix, ignoring case', () => {
    expect(hostMatchesPattern('API.github.com', 'api.github.com')).toBe(true);
    expect(hostMatchesPattern('a.slack.com', '*.slack.com')).toBe(true);
    expect(hostMatchesPattern('slack.com', '*.slack.com')).toBe(false);
    expect(hostMatchesPattern('evilslack.com', '*.slack.com')).toBe(false);
    expect(hostMatchesPattern('api.github.com.evil', 'api.github.com')).toBe(false);
  });
});
