import { agentqTracer, contextWithSpan, activeContext, silentLogger, type Telemetry } from '@agentq/shared';
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNativeSearches } from '../../apps/agent-worker/src/run/native-search-timing.js';
import { startMemoryTelemetry } from './memory-telemetry.js';

// A finished step as the AI SDK reports it: Anthropic's search, its result, then a found tool's call.
const content = [
  {
    type: 'tool-call',
    toolCallId: 'srvtoolu_1',
    toolName: 'provider_tool_search',
    input: { query: 'records' },
    providerExecuted: true,
  },
  {
    type: 'tool-result',
    toolCallId: 'srvtoolu_1',
    toolName: 'provider_tool_search',
    output: [{ type: 'tool_reference', toolName: 'mcp__big__tool0007' }],
  },
  { type: 'tool-call', toolCallId: 'toolu_2', toolName: 'mcp__big__tool0007', input: { query: 'x' } },
];

describe('native searches in traces and the journal', () => {
  let telemetry: Telemetry;
  let exporter: InMemorySpanExporter;

  beforeAll(async () => {
    ({ telemetry, exporter } = await startMemoryTelemetry());
  });

  afterAll(async () => {
    await telemetry?.shutdown();
  });

  const record = async (traceArguments: boolean) => {
    exporter.reset();
    const journal: Array<{ toolCallId: string; result: Record<string, unknown> }> = [];
    const step = agentqTracer().startSpan('agentq.run.step');
    await recordNativeSearches({
      content,
      timing: { startedAt: 1_000_000, finishedAt: 1_000_250 },
      store: { recordToolResult: async (entry) => void journal.push(entry) },
      runId: 'r1',
      incarnation: 'i1',
      stepContext: contextWithSpan(activeContext(), step),
      traceArguments,
      logger: silentLogger(),
    });
    step.end();
    return { journal, spans: exporter.getFinishedSpans(), step };
  };

  it('records a search like a tool_search call: an ai.toolCall span under the step, timed by the model request', async () => {
    const { journal, spans, step } = await record(false);
    const search = spans.find((span) => span.name === 'ai.toolCall');
    expect(search?.attributes).toMatchObject({
      'ai.toolCall.name': 'provider_tool_search',
      'ai.toolCall.id': 'srvtoolu_1',
      'agentq.tool_call.provider_executed': true,
    });
    // Query and results only with traceArguments, as for every call.
    expect(search?.attributes['ai.toolCall.args']).toBeUndefined();
    expect(search?.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(search?.startTime).toEqual([1_000, 0]);
    expect(search?.endTime).toEqual([1_000, 250_000_000]);
    // Only the provider's search: the call of the found tool is the SDK's to trace.
    expect(spans.filter((span) => span.name === 'ai.toolCall')).toHaveLength(1);
    expect(journal).toEqual([
      {
        runId: 'r1',
        toolCallId: 'srvtoolu_1',
        result: {
          ok: true,
          output: [{ type: 'tool_reference', toolName: 'mcp__big__tool0007' }],
          toolName: 'provider_tool_search',
          incarnation: 'i1',
          startedAt: 1_000_000,
          finishedAt: 1_000_250,
        },
      },
    ]);
  });

  it('adds the query and the results with traceArguments', async () => {
    const { spans } = await record(true);
    const search = spans.find((span) => span.name === 'ai.toolCall');
    expect(search?.attributes['ai.toolCall.args']).toBe('{"query":"records"}');
    expect(search?.attributes['ai.toolCall.result']).toContain('mcp__big__tool0007');
  });
});
