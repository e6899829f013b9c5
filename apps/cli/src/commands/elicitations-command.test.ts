import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { contentOf, type FormField } from './elicitations-command.js';

const fields: FormField[] = [
  { name: 'count', type: 'integer', required: true },
  { name: 'ratio', type: 'number', required: false },
  { name: 'name', type: 'string', required: false },
];

function refusal(pairs: string[]): AgentqError {
  try {
    contentOf(pairs, fields);
  } catch (error) {
    if (AgentqError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`accepted ${pairs.join(' ')}`);
}

describe('contentOf (elicitations answer --set)', () => {
  it('reads numbers by their field type', () => {
    expect(contentOf(['count=3', 'ratio=0.5', 'name=7'], fields)).toEqual({ count: 3, ratio: 0.5, name: '7' });
  });

  it('refuses a number field that is empty or not a number, naming the field', () => {
    for (const [pair, field] of [
      ['count=abc', 'count'],
      ['count=2.5', 'count'],
      ['ratio=', 'ratio'],
      ['ratio=  ', 'ratio'],
      ['ratio=1x', 'ratio'],
    ] as const) {
      const error = refusal([pair]);
      expect(error.code, pair).toBe('VALIDATION');
      expect(error.field, pair).toBe(field);
      expect(error.message, pair).toMatch(new RegExp(`^--set ${field}: expected a (whole )?number, got ".*"$`));
    }
  });
});
