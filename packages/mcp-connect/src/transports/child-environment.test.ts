import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from './child-environment.js';

describe('childEnvironment', () => {
  afterEach(() => {
    delete process.env.AGENTQ_CHILD_ENV_PROBE;
  });

  it("gives the SDK's safe defaults, the definition's env on top, and nothing else of the parent", () => {
    process.env.AGENTQ_CHILD_ENV_PROBE = 'parent-only';
    const env = childEnvironment({ TOKEN: 'abc', PATH: '/custom/bin' });
    expect(env.TOKEN).toBe('abc');
    expect(env.PATH).toBe('/custom/bin');
    expect(env.AGENTQ_CHILD_ENV_PROBE).toBeUndefined();
    expect(childEnvironment({}).PATH).toBe(process.env.PATH);
  });
});
