/** One measured figure of a benchmark suite. */
export interface BenchFigure {
  /** Suite-local name, for example `tokens.deferred/inline@200`. */
  name: string;
  /** The figure itself: a ratio, a count, bytes. */
  value: number;
  unit: string;
  /** The goal from the issue, when there is one, for example `<= 0.10`. */
  goal?: string;
  /** Whether `value` meets `goal`; absent when there is no goal. */
  pass?: boolean;
  /** Raw measurements behind the figure (baseline and subject), for the JSON record. */
  details?: Record<string, unknown>;
}

/** A benchmark suite: `bench/suites/<name>.ts` default-exports one. */
export interface BenchSuite {
  name: string;
  description: string;
  run(context: BenchContext): Promise<BenchFigure[]>;
}

/** What the runner hands to every suite. */
export interface BenchContext {
  /** A Redis URL the suite may use with its own key prefix. */
  redisUrl: string;
  /** Quick mode (`--quick`): fewer iterations, for smoke checks. */
  quick: boolean;
}

/** `value <= limit`, as a figure goal. */
export function atMost(value: number, limit: number): { goal: string; pass: boolean } {
  return { goal: `<= ${limit}`, pass: value <= limit };
}

/** `value >= limit`, as a figure goal. */
export function atLeast(value: number, limit: number): { goal: string; pass: boolean } {
  return { goal: `>= ${limit}`, pass: value >= limit };
}
