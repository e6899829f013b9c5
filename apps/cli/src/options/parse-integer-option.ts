import { InvalidArgumentError } from 'commander';

/** Bounds of {@link parseIntegerOption}. */
export interface IntegerOptionBounds {
  /** Smallest accepted value. @default 0 */
  min?: number;
  /** Largest accepted value. @default Number.MAX_SAFE_INTEGER */
  max?: number;
  /** What the number counts, for the message, e.g. `milliseconds`. */
  unit?: string;
}

/**
 * A commander argument parser for a whole-number option. Anything else (`abc`, `1.5`, `-3`, `1e3`,
 * out of range) is refused with a message that says what is expected; commander prints it and
 * `agentq` exits with the usage code 2, instead of carrying `NaN` into the command.
 */
export function parseIntegerOption(bounds: IntegerOptionBounds = {}): (value: string) => number {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const range = bounds.max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  const what = `a whole number${bounds.unit ? ` of ${bounds.unit}` : ''} ${range}`;
  return (value: string) => {
    const text = value.trim();
    const number = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected ${what}.`);
    }
    return number;
  };
}
