import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { cutToTokenBudget } from './cut-to-token-budget.js';

describe('cutToTokenBudget', () => {
  it('keeps a text within the budget as it is', () => {
    const text = 'A short note about tides.\nAnother line.';
    expect(cutToTokenBudget(text, 100)).toEqual({ text, cut: false });
  });

  it('cuts a long text to a prefix of about the budget', () => {
    const text = Array.from({ length: 3_000 }, (_, index) => `word${index % 97}`).join(' ');
    const budgeted = cutToTokenBudget(text, 500);
    expect(budgeted.cut).toBe(true);
    expect(text.startsWith(budgeted.text)).toBe(true);
    const tokens = countTokens(budgeted.text);
    expect(tokens).toBeLessThanOrEqual(500);
    expect(tokens).toBeGreaterThan(450);
  });

  it('handles a long run without spaces a segment at a time', () => {
    const text = 'z'.repeat(200_000);
    const budgeted = cutToTokenBudget(text, 1_000);
    expect(budgeted.cut).toBe(true);
    expect(text.startsWith(budgeted.text)).toBe(true);
    expect(countTokens(budgeted.text)).toBeLessThanOrEqual(1_000);
  });
});
