import { describe, expect, it } from 'vitest';
import { maskSecretValues, SECRET_MASK } from './mask-secret-values.js';

describe('maskSecretValues', () => {
  it('masks every occurrence of each value and leaves very short values alone', () => {
    expect(maskSecretValues('token s3cr3t in s3cr3t, id ab', ['s3cr3t', 'ab'])).toBe(
      `token ${SECRET_MASK} in ${SECRET_MASK}, id ab`,
    );
  });
});
