import { describe, expect, it } from 'vitest';
import { makeTool } from '../test-support/fixtures.js';
import { isApprovalGated, mayNeedApproval } from './is-approval-gated.js';

const context = { toolCallId: 'c1', messages: [], input: { text: 'x' } };

describe('isApprovalGated', () => {
  it('no needsApproval means not gated', async () => {
    expect(await isApprovalGated(makeTool(), context)).toBe(false);
  });

  it('returns a boolean as it is', async () => {
    expect(await isApprovalGated(makeTool({ needsApproval: true }), context)).toBe(true);
    expect(await isApprovalGated(makeTool({ needsApproval: false }), context)).toBe(false);
  });

  it('awaits a function, handing it the input and the call', async () => {
    const seen: unknown[] = [];
    const tool = makeTool({
      needsApproval: async (input, options) => {
        seen.push(input, options.toolCallId);
        return (input as { text: string }).text === 'x';
      },
    });
    expect(await isApprovalGated(tool, context)).toBe(true);
    expect(await isApprovalGated(tool, { ...context, input: { text: 'y' } })).toBe(false);
    expect(seen.slice(0, 2)).toEqual([{ text: 'x' }, 'c1']);
  });

  it('a function that throws or rejects counts as gated', async () => {
    const throwing = makeTool({
      needsApproval: () => {
        throw new Error('policy store down');
      },
    });
    const rejecting = makeTool({ needsApproval: async () => Promise.reject(new Error('nope')) });
    expect(await isApprovalGated(throwing, context)).toBe(true);
    expect(await isApprovalGated(rejecting, context)).toBe(true);
  });

  it('mayNeedApproval counts anything but absent or false', () => {
    expect(mayNeedApproval(makeTool())).toBe(false);
    expect(mayNeedApproval(makeTool({ needsApproval: false }))).toBe(false);
    expect(mayNeedApproval(makeTool({ needsApproval: true }))).toBe(true);
    expect(mayNeedApproval(makeTool({ needsApproval: () => false }))).toBe(true);
  });
});
