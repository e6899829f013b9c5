import type { RunCheckpoint } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { freshCheckpoint } from './fresh-checkpoint.js';
import { withRunTools } from './with-run-tools.js';

describe('withRunTools', () => {
  it('keeps every name shown so far, updates catalog versions and adds each warning once', () => {
    const checkpoint: RunCheckpoint = {
      ...freshCheckpoint({
        runId: 'run-1',
        incarnation: 'incarnation-1',
        now: 1,
        spec: { input: { prompt: 'go' } } as Parameters<typeof freshCheckpoint>[0]['spec'],
      }),
      wireNames: { old__tool: 'old:tool' },
      catalogVersion: { old: 'v1', kept: 'v1' },
      warnings: [{ code: 'MCP_SERVER_UNAVAILABLE', serverId: 'gone', reason: 'removed', message: 'gone' }],
    };
    const merged = withRunTools(checkpoint, {
      wireNames: { new__tool: 'new:tool' },
      catalogVersion: { old: 'v2' },
      warnings: [
        { code: 'MCP_SERVER_UNAVAILABLE', serverId: 'gone', reason: 'disabled', message: 'gone again' },
        { code: 'MCP_SERVER_UNAVAILABLE', serverId: 'other', reason: 'removed', message: 'other' },
      ],
    });
    expect(merged.wireNames).toEqual({ old__tool: 'old:tool', new__tool: 'new:tool' });
    expect(merged.catalogVersion).toEqual({ old: 'v2', kept: 'v1' });
    expect(merged.warnings.map((warning) => [warning.serverId, warning.message])).toEqual([
      ['gone', 'gone'],
      ['other', 'other'],
    ]);
    expect(checkpoint.wireNames).toEqual({ old__tool: 'old:tool' });
  });
});
