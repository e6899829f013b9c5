import { performance } from 'node:perf_hooks';
import { matchGlob } from '@agentq/shared';
import { atMost, type BenchSuite } from '../bench-types.js';

/**
 * Issue #14, hole 4: `approval.requireFor` patterns used to compile to a regex, and a pattern of
 * stars followed by a literal blocked a worker for seconds. The glob matcher must answer the worst
 * case, a 10 000-star pattern against a 10 000-character near miss, in well under a millisecond.
 */
const suite: BenchSuite = {
  name: 'security-glob-matcher',
  description: 'matchGlob on adversarial patterns: median time per match',
  async run({ quick }) {
    const iterations = quick ? 200 : 2_000;
    const cases = [
      { name: 'stars-10000', pattern: `${'*'.repeat(10_000)}X`, text: 'a'.repeat(10_000) },
      { name: 'star-a-5000', pattern: `${'*a'.repeat(5_000)}*X`, text: 'a'.repeat(10_000) },
      { name: 'requireFor-256', pattern: `${'*'.repeat(255)}X`, text: `mcp__github__${'a'.repeat(200)}` },
    ];
    return cases.map((each) => {
      const samples: number[] = [];
      for (let index = 0; index < iterations; index++) {
        const started = performance.now();
        matchGlob(each.pattern, each.text);
        samples.push(performance.now() - started);
      }
      samples.sort((a, b) => a - b);
      const median = samples[Math.floor(samples.length / 2)] ?? 0;
      return {
        name: `match.${each.name}`,
        value: Number(median.toFixed(4)),
        unit: 'ms',
        ...atMost(median, 0.5),
        details: { iterations, p99: samples[Math.floor(samples.length * 0.99)] },
      };
    });
  },
};

export default suite;
