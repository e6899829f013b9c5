import { describe, expect, it } from 'vitest';
import { createApiTokenSet } from './api-token-set.js';
import { bearerToken, tokensMatch } from './token-check.js';

const all = 'default-token-0123456789';
const alice = 'alice-token-0123456789';

describe('api token set', () => {
  const tokens = createApiTokenSet({
    apiToken: all,
    apiTokens: [{ name: 'alice', scopes: ['runs'], token: alice }],
  });

  it('names the token that matched, with its scopes', () => {
    expect(tokens.authenticate(all)).toMatchObject({ name: 'default' });
    expect([...(tokens.authenticate(all)?.scopes ?? [])].sort()).toEqual([
      'admin',
      'approvals',
      'kbs',
      'runs',
      'servers',
    ]);
    expect(tokens.authenticate(alice)?.name).toBe('alice');
    expect([...(tokens.authenticate(alice)?.scopes ?? [])]).toEqual(['runs']);
    expect(tokens.authenticate('alice')).toBeUndefined();
    expect(tokens.authenticate('')).toBeUndefined();
    expect(tokens.authenticate(undefined)).toBeUndefined();
  });

  it('resolves a session only while its token is unchanged', () => {
    const digest = tokens.digestOf('alice') as string;
    expect(tokens.resolve('alice', digest)?.name).toBe('alice');
    const rotated = createApiTokenSet({
      apiToken: undefined,
      apiTokens: [{ name: 'alice', scopes: ['runs'], token: `${alice}x` }],
    });
    expect(rotated.resolve('alice', digest)).toBeUndefined();
    expect(tokens.resolve('bob', digest)).toBeUndefined();
    expect(tokens.resolve('alice', 'zz')).toBeUndefined();
  });

  it('refuses to start without any token', () => {
    expect(() => createApiTokenSet({ apiToken: undefined, apiTokens: undefined })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});

describe('token checks', () => {
  it('compares tokens of any length without throwing', () => {
    expect(tokensMatch(all, all)).toBe(true);
    expect(tokensMatch('short', all)).toBe(false);
    expect(tokensMatch('', all)).toBe(false);
  });

  it('reads bearer headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
