import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolId } from '@agentq/shared';
import { assignMcpWireNames, mcpWireName, parseMcpWireName } from './mcp-wire-name.js';
import { toCamelSegment } from './to-camel-segment.js';
import { BUILTIN_TOOL_NAMES, isValidToolName, MAX_TOOL_NAME_LENGTH, META_TOOL_NAMES } from './tool-names.js';

const valid = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

describe('fixed names', () => {
  it('builtins and meta tools keep their names', () => {
    expect(Object.values(BUILTIN_TOOL_NAMES).sort()).toEqual(['kb_list', 'kb_search', 'web_fetch', 'web_search']);
    expect(Object.values(META_TOOL_NAMES).sort()).toEqual(['tool_exec', 'tool_inspect', 'tool_invoke', 'tool_search']);
    expect(MAX_TOOL_NAME_LENGTH).toBe(63);
  });
});

describe('toCamelSegment', () => {
  it.each([
    ['my-server', 'myServer'],
    ['MY_SERVER', 'myServer'],
    ['@anthropic/mcp-server', 'AnthropicMcpServer'],
    ['123server', '_123server'],
    ['  read file  ', 'readFile'],
    ['get__sum', 'getSum'],
    ['café-menu', 'cafMenu'],
  ])('%s → %s', (input, expected) => {
    expect(toCamelSegment(input)).toBe(expected);
  });
});

describe('mcpWireName', () => {
  it('uses mcp__<server>__<tool> when it fits', () => {
    expect(mcpWireName('gmail', 'send_message')).toBe('mcp__gmail__sendMessage');
    expect(mcpWireName('my-server', '2fa-check')).toBe('mcp__myServer___2faCheck');
  });

  it('adds a digest suffix and stays within 63 characters when too long', () => {
    const name = mcpWireName(
      'a-very-long-server-identifier-for-testing',
      'and_an_even_longer_tool_name_that_goes_on_and_on',
    );
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(valid);
    expect(name).toMatch(/_[0-9a-f]{10}$/);
    expect(
      mcpWireName('a-very-long-server-identifier-for-testing', 'and_an_even_longer_tool_name_that_goes_on_and_on'),
    ).toBe(name);
  });

  it('gives a valid name when a segment has no ASCII letters or digits', () => {
    const name = mcpWireName('srv', '日本語');
    expect(name).toMatch(valid);
    expect(parseMcpWireName(name)).not.toBeNull();
  });
});

describe('assignMcpWireNames', () => {
  it('keeps plain names when nothing collides', () => {
    const names = assignMcpWireNames([
      { serverId: 'gh', toolName: 'create_issue' },
      { serverId: 'gh', toolName: 'list_issues' },
    ]);
    expect(names.get('gh:create_issue')).toBe('mcp__gh__createIssue');
    expect(names.get('gh:list_issues')).toBe('mcp__gh__listIssues');
  });

  it('gives every holder of a shared plain name its own digest-suffixed name, whatever the order', () => {
    const pairs = [
      { serverId: 'calc', toolName: 'get-sum' },
      { serverId: 'calc', toolName: 'get_sum' },
      { serverId: 'calc', toolName: 'other' },
    ];
    const forward = assignMcpWireNames(pairs);
    const backward = assignMcpWireNames([...pairs].reverse());
    expect(forward).toEqual(backward);
    expect(forward.get('calc:get-sum')).not.toBe(forward.get('calc:get_sum'));
    expect(forward.get('calc:get-sum')).toMatch(/^mcp__calc__getSum_[0-9a-f]+$/);
    expect(forward.get('calc:other')).toBe('mcp__calc__other');
  });

  it('separates servers whose ids slug to the same segment', () => {
    const names = assignMcpWireNames([
      { serverId: 'my-server', toolName: 'ping' },
      { serverId: 'my_server', toolName: 'ping' },
    ]);
    expect(new Set(names.values()).size).toBe(2);
  });

  it('keeps the digest part when only a display name changes (ids never carry display names)', () => {
    const before = mcpWireName('github', 'x'.repeat(80));
    const after = mcpWireName('github', 'x'.repeat(80));
    expect(after).toBe(before);
  });
});

describe('parseMcpWireName', () => {
  it('splits a wire name into its segments', () => {
    expect(parseMcpWireName('mcp__gmail__sendMessage')).toEqual({ server: 'gmail', tool: 'sendMessage' });
    expect(parseMcpWireName('mcp___123server___1tool')).toEqual({ server: '_123server', tool: '_1tool' });
  });

  it('rejects names without the prefix or without a second separator', () => {
    expect(parseMcpWireName('web_search')).toBeNull();
    expect(parseMcpWireName('mcp__onlyserver')).toBeNull();
    expect(parseMcpWireName('mcp_gmail__send')).toBeNull();
    expect(parseMcpWireName('mcp__gmail__')).toBeNull();
  });
});

// Random Unicode names, plus families built to collide: one base text in several spellings,
// long shared prefixes, and different servers with one display name.
const unicodeName = fc.string({ unit: 'grapheme', minLength: 0, maxLength: 40 });
const collidingName = fc
  .tuple(
    fc.constantFrom('get sum', 'read-file', 'x'.repeat(70), 'ÄÖÜ tool'),
    fc.constantFrom('', '-', '_', ' ', '--', 'é'),
  )
  .map(([base, separator]) => base.replace(/[ -]/g, separator || '-'));
const longPrefix = fc.string({ minLength: 0, maxLength: 5 }).map((tail) => `${'shared-prefix-'.repeat(5)}${tail}`);
const serverId = fc.oneof(
  fc.constantFrom('my-server', 'my_server', 'myserver', 'my--server', '123server', 'a'.repeat(63)),
  fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,62}$/),
);
const toolName = fc.oneof(unicodeName, collidingName, longPrefix);
const pairs = fc.uniqueArray(fc.record({ serverId, toolName }), {
  minLength: 1,
  maxLength: 40,
  selector: (pair) => toolId(pair.serverId, pair.toolName),
});

describe('wire name properties', () => {
  it('always valid and at most 63 characters', () => {
    fc.assert(
      fc.property(serverId, toolName, (server, tool) => {
        const name = mcpWireName(server, tool);
        return isValidToolName(name) && parseMcpWireName(name) !== null;
      }),
      { numRuns: 2000 },
    );
  });

  it('injective over distinct pairs, and each name valid and parseable', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const names = assignMcpWireNames(list);
        const values = [...names.values()];
        return (
          names.size === list.length &&
          new Set(values).size === values.length &&
          values.every((name) => isValidToolName(name) && parseMcpWireName(name) !== null)
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('deterministic: the same set in any order gives the same names', () => {
    fc.assert(
      fc.property(pairs, fc.integer(), (list, seed) => {
        const at = Math.abs(seed) % list.length;
        const shuffled = [...list.slice(at), ...list.slice(0, at)].reverse();
        expect(assignMcpWireNames(shuffled)).toEqual(assignMcpWireNames(list));
      }),
      { numRuns: 300 },
    );
  });

  it('a single pair gets the same name alone and through assignMcpWireNames', () => {
    fc.assert(
      fc.property(serverId, toolName, (server, tool) => {
        expect(assignMcpWireNames([{ serverId: server, toolName: tool }]).get(toolId(server, tool))).toBe(
          mcpWireName(server, tool),
        );
      }),
      { numRuns: 500 },
    );
  });
});
