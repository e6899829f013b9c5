import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from './mask-secret-values.js';
import { allowListedSecretValues, createSecretValueSet } from './secret-value-set.js';

describe('createSecretValueSet', () => {
  it('masks every value added, at any depth, keys included, and ignores values under 4 characters', () => {
    const set = createSecretValueSet(['first-secret']);
    set.add(['second-secret', 'ab']);
    const masked = set.mask({
      text: 'has first-secret',
      list: [{ deep: Buffer.from('second-secret').toString('base64') }],
      ['second-secret']: 1,
      short: 'ab',
    });
    expect(masked).toEqual({
      text: `has ${SECRET_MASK}`,
      list: [{ deep: SECRET_MASK }],
      [SECRET_MASK]: 1,
      short: 'ab',
    });
    expect(set.values()).toEqual(['first-secret', 'second-secret']);
  });
});

describe('allowListedSecretValues', () => {
  it('returns the values of AGENTQ_SECRET_* and AGENTQ_SECRET_NAMES variables, never settings', () => {
    const values = allowListedSecretValues({
      AGENTQ_SECRET_TOKEN: 'prefixed-value',
      AGENTQ_SECRET_NAMES: 'GITHUB_TOKEN',
      GITHUB_TOKEN: 'listed-value',
      OTHER: 'not-a-secret',
      AGENTQ_PREFIX: 'agentq',
    });
    expect(values.sort()).toEqual(['listed-value', 'prefixed-value']);
  });
});
