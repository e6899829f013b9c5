import { ROOT_CONTEXT, createContextKey, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { reparentingTracer } from './reparenting-tracer.js';

const marker = createContextKey('parent');
const contextNamed = (name: string) => ROOT_CONTEXT.setValue(marker, name);

/** A tracer that records the parent context each span was started under. */
function recordingTracer(parents: Array<[string, unknown]>): Tracer {
  const span = {} as Span;
  return {
    startSpan: (name: string, _options?: unknown, parent?: Context) => {
      parents.push([name, parent?.getValue(marker)]);
      return span;
    },
    startActiveSpan: (name: string, _options: unknown, parent: Context, fn: (span: Span) => unknown) => {
      parents.push([name, parent.getValue(marker)]);
      return fn(span);
    },
  } as unknown as Tracer;
}

describe('reparentingTracer', () => {
  it('starts the chosen span names under the chosen parent, whatever overload the caller used', () => {
    const parents: Array<[string, unknown]> = [];
    const tracer = reparentingTracer({
      tracer: recordingTracer(parents),
      parentOf: (name) => (name === 'moved' ? contextNamed('step') : undefined),
    });
    expect(tracer.startActiveSpan('moved', () => 1)).toBe(1);
    expect(tracer.startActiveSpan('moved', {}, () => 2)).toBe(2);
    expect(tracer.startActiveSpan('moved', {}, contextNamed('given'), () => 3)).toBe(3);
    tracer.startActiveSpan('kept', {}, contextNamed('given'), () => undefined);
    tracer.startSpan('moved', {}, contextNamed('given'));
    tracer.startSpan('kept', {}, contextNamed('given'));
    expect(parents).toEqual([
      ['moved', 'step'],
      ['moved', 'step'],
      ['moved', 'step'],
      ['kept', 'given'],
      ['moved', 'step'],
      ['kept', 'given'],
    ]);
  });
});
