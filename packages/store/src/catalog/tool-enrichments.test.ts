import { describe, expect, it } from 'vitest';
import { parseToolsEnrichedMessage } from './tool-enrichments.js';

describe('parseToolsEnrichedMessage', () => {
  it('accepts a server id and refuses anything else', () => {
    expect(parseToolsEnrichedMessage('everything')).toBe('everything');
    expect(parseToolsEnrichedMessage('gh_2-x')).toBe('gh_2-x');
    for (const bad of ['', 'Not A Server!', '{"serverId":"gh"}', 'a'.repeat(64), '-gh']) {
      expect(parseToolsEnrichedMessage(bad)).toBeUndefined();
    }
  });
});
