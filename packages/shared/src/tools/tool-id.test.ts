import { describe, expect, it } from 'vitest';
import { parseToolId, toolId } from './tool-id.js';

describe('toolId and parseToolId', () => {
  it('round-trip, splitting at the first colon only', () => {
    expect(toolId('github', 'create_issue')).toBe('github:create_issue');
    expect(parseToolId('github:create_issue')).toEqual({ serverId: 'github', toolName: 'create_issue' });
    expect(parseToolId(toolId('srv', 'ns:tool'))).toEqual({ serverId: 'srv', toolName: 'ns:tool' });
  });

  it('rejects ids without both parts', () => {
    expect(parseToolId('no-colon')).toBeNull();
    expect(parseToolId(':tool')).toBeNull();
    expect(parseToolId('server:')).toBeNull();
  });
});
