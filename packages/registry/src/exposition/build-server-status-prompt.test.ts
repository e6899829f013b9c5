import { describe, expect, it } from 'vitest';
import type { ServerFreshness } from '../catalog/catalog-freshness.js';
import { buildServerStatusPrompt } from './build-server-status-prompt.js';

const unavailable = (label: string): ServerFreshness => ({
  kind: 'unavailable',
  serverId: label,
  label,
  reason: 'not-warmed',
});

describe('buildServerStatusPrompt', () => {
  it('is empty when every server is fine', () => {
    expect(buildServerStatusPrompt([])).toBe('');
  });

  it('names stale servers with since when and their error, and unavailable ones with why', () => {
    const prompt = buildServerStatusPrompt([
      { kind: 'stale', serverId: 'f', label: 'files', since: Date.UTC(2026, 11, 1, 15, 0, 30), error: 'timed out' },
      unavailable('github'),
      { kind: 'unavailable', serverId: 'j', label: 'jira', reason: 'disabled' },
    ]);
    const lines = prompt.split('\n');
    expect(lines[2]).toContain('files: stale since 2026-12-01T15:00Z');
    expect(lines[2]).toContain('timed out');
    expect(lines[3]).toMatch(/^- github: unavailable/);
    expect(lines[4]).toMatch(/^- jira: unavailable/);
  });

  it('says that a server needs authorization, with or without a kept list', () => {
    const prompt = buildServerStatusPrompt([
      { kind: 'unavailable', serverId: 'l', label: 'linear', reason: 'auth-required' },
      { kind: 'stale', serverId: 'n', label: 'notion', since: 0, authorization: 'auth-failed', error: 'invalid_token' },
    ]);
    const lines = prompt.split('\n');
    expect(lines[2]).toMatch(/^- linear: unavailable, it needs authorization/);
    expect(lines[3]).toMatch(/^- notion: needs authorization/);
    expect(lines[3]).toContain('invalid_token');
  });

  it('lists at most the limit, then counts the rest', () => {
    const servers = Array.from({ length: 30 }, (_, index) => unavailable(`s${String(index).padStart(2, '0')}`));
    const prompt = buildServerStatusPrompt(servers, 8);
    expect(prompt.split('\n').filter((line) => line.startsWith('- s'))).toHaveLength(8);
    expect(prompt).toContain('and 22 more');
  });
});
