import { createCodeSandbox, loadQuickJs, runScript } from '@agentq/code-sandbox';
import {
  applyDeferExposition,
  buildDeferredToolsPrompt,
  createRunToolState,
  toolInputSchema,
  ToolRegistry,
  type ToolEntry,
  type ToolExecSandbox,
} from '@agentq/registry';
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { countTokens } from 'gpt-tokenizer';
import type { BenchFigure, BenchSuite } from '../bench-types.js';

// A run that must read 50 items from one tool and act on the 3 urgent ones, played by a scripted
// model in four ways: every tool inline (direct calls), behind the meta tools, one tool_exec
// script over inline tools (code mode), and tool_search then one script (code mode over deferred
// tools). Input tokens count what the model is sent at each step (prompt and tool definitions,
// o200k tokenizer); steps and wall time are the run's.

const ITEMS = 50;
const URGENT = new Set([7, 23, 41]);
const FILLER = 60;

const items = Array.from({ length: ITEMS }, (_, id) => ({
  id,
  title: `Item ${id}: ${['billing', 'login', 'export', 'search', 'upload'][id % 5]} problem reported by a customer`,
  status: URGENT.has(id) ? 'urgent' : id % 3 === 0 ? 'closed' : 'open',
  body: `Customer ${id} writes that the ${['billing', 'login', 'export', 'search', 'upload'][id % 5]} page fails with an error after the last release; steps to reproduce follow, with the browser and account details.`,
}));

function entry(name: string, tool: ToolEntry['tool'], namespace: string): ToolEntry {
  return { name, namespace, label: namespace, description: tool.description ?? '', tool, defer: 'auto' } as ToolEntry;
}

function buildTools(acted: number[]): { tools: ToolSet; registry: ToolRegistry } {
  const registry = new ToolRegistry({ indexed: false });
  const tools: ToolSet = {
    tickets_listItems: tool({
      description: 'Lists every item of the ticket queue with its id, title, status and body.',
      inputSchema: toolInputSchema({ type: 'object', properties: {} }),
      execute: async () => items,
    }),
    tickets_escalate: tool({
      description: 'Escalates one item to the on-call engineer.',
      inputSchema: toolInputSchema({
        type: 'object',
        properties: { id: { type: 'number', description: 'The item id.' } },
        required: ['id'],
      }),
      execute: async (input) => {
        const id = (input as { id: number }).id;
        acted.push(id);
        return { escalated: id };
      },
    }),
  };
  for (let index = 0; index < FILLER; index += 1) {
    tools[`crm_lookup${index}`] = tool({
      description: `Looks up records of CRM collection ${index} by a free-text query, with optional status and date filters; returns a page of matches.`,
      inputSchema: toolInputSchema({
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Free-text query.' },
          limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most records returned.' },
          status: { type: 'string', enum: ['open', 'closed', 'archived'] },
        },
        required: ['query'],
      }),
      execute: async () => [],
    });
  }
  for (const [name, each] of Object.entries(tools)) {
    registry.register(entry(name, each, name.startsWith('tickets') ? 'tickets' : 'crm'));
  }
  return { tools, registry };
}

type Move = { calls: { toolName: string; input: unknown }[] } | { text: string };

/** What the scripted model does at each step of each way. */
const plays: Record<string, (step: number) => Move> = {
  direct: (step) =>
    [
      { calls: [{ toolName: 'tickets_listItems', input: {} }] },
      { calls: [...URGENT].map((id) => ({ toolName: 'tickets_escalate', input: { id } })) },
      { text: 'Escalated the 3 urgent items.' },
    ][step] ?? { text: 'done' },
  meta: (step) =>
    [
      { calls: [{ toolName: 'tool_search', input: { query: 'ticket items escalate' } }] },
      {
        calls: [
          { toolName: 'tool_inspect', input: { name: 'tickets_listItems' } },
          { toolName: 'tool_inspect', input: { name: 'tickets_escalate' } },
        ],
      },
      { calls: [{ toolName: 'tool_invoke', input: { name: 'tickets_listItems', params: {} } }] },
      {
        calls: [...URGENT].map((id) => ({
          toolName: 'tool_invoke',
          input: { name: 'tickets_escalate', params: { id } },
        })),
      },
      { text: 'Escalated the 3 urgent items.' },
    ][step] ?? { text: 'done' },
  code: (step) =>
    [{ calls: [{ toolName: 'tool_exec', input: { code: SCRIPT } }] }, { text: 'Escalated the 3 urgent items.' }][
      step
    ] ?? { text: 'done' },
  'code+meta': (step) =>
    [
      { calls: [{ toolName: 'tool_search', input: { query: 'ticket items escalate' } }] },
      { calls: [{ toolName: 'tool_exec', input: { code: SCRIPT } }] },
      { text: 'Escalated the 3 urgent items.' },
    ][step] ?? { text: 'done' },
};

const SCRIPT = `const all = await tools.tickets_listItems({});
const urgent = all.filter((item) => item.status === 'urgent');
for (const item of urgent) await tools.tickets_escalate({ id: item.id });
return urgent.map((item) => ({ id: item.id, title: item.title }));`;

function scriptedModel(play: (step: number) => Move, sent: number[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (options: LanguageModelV3CallOptions) => {
      const step = options.prompt.filter((message) => message.role === 'assistant').length;
      const tokens = countTokens(JSON.stringify({ prompt: options.prompt, tools: options.tools ?? [] }));
      sent.push(tokens);
      const move = play(step);
      const content: LanguageModelV3Content[] =
        'text' in move
          ? [{ type: 'text', text: move.text }]
          : move.calls.map((call, index) => ({
              type: 'tool-call',
              toolCallId: `call_${step}_${index}`,
              toolName: call.toolName,
              input: JSON.stringify(call.input),
            }));
      return {
        content,
        finishReason: { unified: 'text' in move ? 'stop' : 'tool-calls', raw: undefined },
        usage: {
          inputTokens: { total: tokens, noCache: tokens, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 10, text: 10, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

async function playOnce(way: string, sandbox: ToolExecSandbox) {
  const acted: number[] = [];
  const { tools, registry } = buildTools(acted);
  const deferred = way === 'meta' || way === 'code+meta';
  const exposition = await applyDeferExposition(tools, registry, deferred ? 8_000 : 1_000_000, {
    state: createRunToolState(),
    codeMode: way.startsWith('code') ? { sandbox } : undefined,
  });
  const sent: number[] = [];
  const startedAt = performance.now();
  const result = await generateText({
    model: scriptedModel(plays[way] as (step: number) => Move, sent),
    system:
      'You work the ticket queue.\n\n' +
      buildDeferredToolsPrompt(exposition.deferred, { codeMode: way.startsWith('code') }),
    prompt: 'Escalate every urgent item of the ticket queue.',
    tools: exposition.tools,
    stopWhen: stepCountIs(10),
  });
  const wallMs = performance.now() - startedAt;
  if (acted.sort((a, b) => a - b).join() !== [...URGENT].join()) {
    throw new Error(`${way}: acted on ${acted.join()} instead of ${[...URGENT].join()}`);
  }
  return {
    inputTokens: sent.reduce((sum, tokens) => sum + tokens, 0),
    steps: result.steps.length,
    wallMs,
    deferred: exposition.deferred.length,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const suite: BenchSuite = {
  name: 'code-mode',
  description: 'read 50 items, act on 3: input tokens, steps, wall time of direct / meta / code mode; sandbox costs',
  async run({ quick }) {
    const figures: BenchFigure[] = [];
    const iterations = quick ? 3 : 15;

    // Sandbox costs first, in a process that has not loaded QuickJS yet.
    let startedAt = performance.now();
    await loadQuickJs();
    const moduleLoadMs = performance.now() - startedAt;
    const host = { toolNames: [], callTool: async () => null };
    const inProcess: number[] = [];
    for (let index = 0; index < 50; index += 1) {
      startedAt = performance.now();
      await runScript({ code: 'return 1', host });
      inProcess.push(performance.now() - startedAt);
    }
    const codeSandbox = createCodeSandbox();
    startedAt = performance.now();
    await codeSandbox.warm();
    const threadStartMs = performance.now() - startedAt;
    const onThread: number[] = [];
    for (let index = 0; index < 50; index += 1) {
      startedAt = performance.now();
      await codeSandbox.run({ code: 'return 1', host });
      onThread.push(performance.now() - startedAt);
    }
    figures.push(
      { name: 'sandbox.module-load (first, in process)', value: round(moduleLoadMs), unit: 'ms' },
      { name: 'sandbox.thread-start (thread + module, once per worker)', value: round(threadStartMs), unit: 'ms' },
      { name: 'sandbox.context (runtime+context+script, in process)', value: round(median(inProcess)), unit: 'ms' },
      { name: 'sandbox.script (on the sandbox thread, round trip)', value: round(median(onThread)), unit: 'ms' },
    );

    const sandbox: ToolExecSandbox = ({ code, toolNames, callTool, signal }) =>
      codeSandbox.run({ code, host: { toolNames, callTool }, signal });
    try {
      for (const way of ['direct', 'meta', 'code', 'code+meta']) {
        const runs = [];
        for (let index = 0; index < iterations; index += 1) runs.push(await playOnce(way, sandbox));
        const first = runs[0] as Awaited<ReturnType<typeof playOnce>>;
        figures.push(
          {
            name: `${way}.input-tokens`,
            value: first.inputTokens,
            unit: 'tokens',
            details: { deferred: first.deferred },
          },
          { name: `${way}.steps`, value: first.steps, unit: 'steps' },
          { name: `${way}.wall`, value: round(median(runs.map((run) => run.wallMs))), unit: 'ms' },
        );
      }
    } finally {
      await codeSandbox.close();
    }
    return figures;
  },
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export default suite;
