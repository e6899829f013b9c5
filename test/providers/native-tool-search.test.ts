import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient } from '@agentq/client';
import { QUEUE_NAMES, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import {
  anthropicText,
  anthropicToolSearchThenUse,
  anthropicToolUse,
  startFakeAnthropic,
} from '../fixtures/providers/fake-anthropic-messages.js';
import { chatText, chatToolCall, startFakeOpenAIChat } from '../fixtures/providers/fake-openai-chat.js';
import {
  openaiText,
  openaiToolSearchThenCall,
  startFakeOpenAIResponses,
} from '../fixtures/providers/fake-openai-responses.js';
import type { FakeProviderServer, RecordedRequest } from '../fixtures/providers/fake-provider-server.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

type Block = Record<string, unknown>;

interface MessagesBody {
  system?: Array<{ type: string; text: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: Block[] }>;
  tools?: Array<Block & { name: string; defer_loading?: boolean; cache_control?: unknown; description?: string }>;
}

interface ResponsesBody {
  input: Block[];
  tools?: Array<Block & { type: string; name?: string; defer_loading?: boolean; description?: string }>;
}

interface ChatBody {
  tools?: Array<{ type: string; function: Block & { name: string } }>;
}

const counterTool = 'mcp__fx__counterIncrement';
const metaNames = ['tool_search', 'tool_inspect', 'tool_invoke', 'tool_exec'];
// Large enough for the model, small enough that the 200 tools of `big` are deferred.
const contextWindow = 64_000;
// A stdio fixture starts through tsx: on a busy machine that can take longer than the default.
const slowStart = { connectMs: 60_000 };

describe('native tool search on the provider wire (loopback fakes)', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let approvalsQueue: Queue;
  let folder: string;
  let counterFile: string;
  let anthropic: FakeProviderServer;
  let openai: FakeProviderServer;
  let chat: FakeProviderServer;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-native-search-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile, media: true }), timeouts: slowStart },
    });
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'big', transport: fixtureStdioTransport({ tools: 200 }), timeouts: slowStart },
    });
    [anthropic, openai, chat] = await Promise.all([
      startFakeAnthropic(),
      startFakeOpenAIResponses(),
      startFakeOpenAIChat(),
    ]);
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-native-000000',
        AGENTQ_ANTHROPIC_BASE_URL: anthropic.baseUrl,
        OPENAI_API_KEY: 'sk-native-000000',
        AGENTQ_OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl,
      },
      // Building a 200-tool request on a busy machine can hold the event loop past the harness's
      // short lock: the run would be taken over mid-step and ask the fake again.
      tuning: { lockDurationMs: 30_000, stalledIntervalMs: 15_000 },
    });
    queue = runsQueue(ctx);
    approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await Promise.all([anthropic?.close(), openai?.close(), chat?.close()]);
    await approvalsQueue?.obliterate({ force: true });
    await approvalsQueue?.close();
    await stopWorkerSuite({ worker, queue, ctx });
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const spec = (options: {
    model: string;
    settings?: Record<string, unknown>;
    requireFor?: string[];
  }): RunSpecInput => ({
    assistant: {
      model: options.model,
      system: 'Be brief.',
      mcpServers: ['fx', 'big'],
      contextWindow,
      ...(options.settings ? { settings: options.settings } : {}),
    },
    input: { prompt: 'look up record 7' },
    ...(options.requireFor ? { approval: { requireFor: options.requireFor } } : {}),
  });

  const runOn = async (fake: FakeProviderServer, runId: string, runSpec: RunSpecInput) => {
    const first = fake.requests.length;
    await enqueueRun(queue, { runId, spec: runSpec, attempts: 1 });
    const finished = await waitForJob(queue, runId, 90_000);
    return { finished, requests: fake.requests.slice(first) };
  };

  /** Enqueues a run gated on the counter tool and waits until it parks; returns its first request index. */
  const parkOnCounter = async (fake: FakeProviderServer, runId: string, model: string, note: string) => {
    const first = fake.requests.length;
    await enqueueRun(queue, { runId, spec: spec({ model, requireFor: ['fx:counter_increment'] }), attempts: 1 });
    const pending = await eventually(async () => {
      const found = await listPendingApprovals(ctx, { runId });
      return found.length === 1 ? found : undefined;
    }, 60_000);
    expect(pending[0]).toMatchObject({ toolName: counterTool, input: { note } });
    expect(await readCounterNotes(counterFile)).not.toContain(note);
    return { first, approvalId: pending[0]?.approvalId as string };
  };

  /** The wire name of synthetic tool number `index` of `big`, found by its description. */
  const bigToolName = (tools: Array<{ name?: string; description?: string }>, index: number) => {
    const found = tools.find((tool) => tool.description?.startsWith(`Synthetic fixture tool number ${index}:`));
    expect(found?.name).toMatch(/^mcp__big__/);
    return found?.name as string;
  };

  it('Anthropic, default exposition: sends the search tool and 200+ defer_loading tools, calls a found tool, completes', async () => {
    // The tool names are only known from the first request, so the first answer names a tool the
    // fixture is known to have under its deterministic wire name, and the test checks it was sent.
    const target = 'mcp__big__tool0007';
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_1',
        query: 'collection 7 records',
        found: [target],
        call: { id: 'toolu_native_1', name: target, input: { query: 'record 7' } },
      }),
      anthropicText('found it', { cache_read_input_tokens: 800 }),
    );
    const { finished, requests } = await runOn(
      anthropic,
      'native-anthropic',
      spec({ model: 'anthropic:claude-sonnet-4-5' }),
    );
    const seen = JSON.stringify({
      finished,
      messages: requests.map((request) => (request.body as MessagesBody).messages),
    }).slice(0, 4000);
    expect(finished.state, seen).toBe('completed');
    expect(requests, seen).toHaveLength(2);
    const [first, second] = requests.map((request: RecordedRequest) => request.body as MessagesBody);
    const tools = first?.tools ?? [];
    expect(bigToolName(tools, 7)).toBe(target);
    expect(tools).toContainEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const deferred = tools.filter((tool) => tool.defer_loading === true);
    expect(deferred.filter((tool) => tool.name.startsWith('mcp__big__')).length).toBeGreaterThanOrEqual(200);
    for (const name of metaNames) expect(tools.map((tool) => tool.name)).not.toContain(name);
    // Deferred tools carry no cache breakpoint; the system prompt does, and lists the groups.
    expect(deferred.some((tool) => tool.cache_control !== undefined)).toBe(false);
    expect(first?.system?.[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(first?.system?.[0]?.text).toContain('<deferred_tools>');
    expect(first?.system?.[0]?.text).not.toContain('tool_inspect');
    // The tool list stays the same from step to step (the prompt cache holds).
    expect(second?.tools).toEqual(first?.tools);
    const assistant = second?.messages.find((message) => message.role === 'assistant');
    expect(assistant?.content, seen).toEqual([
      expect.objectContaining({
        type: 'server_tool_use',
        id: 'srvtoolu_native_1',
        name: 'tool_search_tool_bm25',
        input: { query: 'collection 7 records' },
      }),
      expect.objectContaining({
        type: 'tool_search_tool_result',
        tool_use_id: 'srvtoolu_native_1',
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: [{ type: 'tool_reference', tool_name: target }],
        },
      }),
      expect.objectContaining({
        type: 'tool_use',
        id: 'toolu_native_1',
        name: target,
        input: expect.objectContaining({ query: 'record 7' }),
      }),
    ]);
    const toolResult = second?.messages.at(-1)?.content.find((part) => part.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_native_1' });
    expect(toolResult?.is_error ?? false, JSON.stringify(toolResult)).toBe(false);
    expect(JSON.stringify(toolResult?.content)).toContain('tool_0007');

    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('found it');
    expect(result.tools?.deferred).toBeGreaterThanOrEqual(200);
    // The search shows in the run's tool calls like a tool_search call: its query and what it found.
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        toolName: 'provider_tool_search',
        input: { query: 'collection 7 records' },
        output: [{ type: 'tool_reference', toolName: target }],
        isError: false,
        providerExecuted: true,
      }),
      expect.objectContaining({ toolName: target, isError: false }),
    ]);
    // The timeline times the search by the model request that ran it, as it times tool calls.
    const client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    try {
      const timeline = await client.getRunTimeline('native-anthropic');
      const search = timeline.steps[0]?.calls.find((call) => call.toolName === 'provider_tool_search');
      expect(search).toMatchObject({ status: 'ok', input: { query: 'collection 7 records' } });
      expect(search?.durationMs).toEqual(expect.any(Number));
      expect(search?.startedAt).toEqual(expect.any(Number));
      expect(timeline.inProgress).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('OpenAI Responses, default exposition: sends the hosted tool_search and defer_loading functions, calls a found tool', async () => {
    const target = 'mcp__big__tool0011';
    openai.enqueue(
      openaiToolSearchThenCall({
        query: 'collection 11 records',
        found: [{ name: target, description: 'Synthetic fixture tool number 11.' }],
        call: { callId: 'call_native_1', name: target, input: { query: 'record 11' } },
      }),
      openaiText('found it too'),
    );
    const { finished, requests } = await runOn(openai, 'native-openai', spec({ model: 'openai:gpt-5.4' }));
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.body as ResponsesBody);
    const tools = first?.tools ?? [];
    expect(bigToolName(tools, 11)).toBe(target);
    expect(tools.filter((tool) => tool.type === 'tool_search')).toEqual([{ type: 'tool_search' }]);
    const functions = tools.filter((tool) => tool.type === 'function');
    expect(functions.filter((tool) => tool.defer_loading === true).length).toBeGreaterThanOrEqual(200);
    // The hosted search is `tool_search` on the wire: no function may have that name, or a meta name.
    for (const name of metaNames) expect(functions.map((tool) => tool.name)).not.toContain(name);
    expect(second?.tools).toEqual(first?.tools);
    // The search items go back (as stored-item references or in full), then the call and its output.
    const kinds = second?.input.map((item) => item.type ?? item.role);
    expect(kinds).toContain('function_call_output');
    const output = second?.input.find((item) => item.type === 'function_call_output');
    expect(output).toMatchObject({ call_id: 'call_native_1' });
    expect(String(output?.output)).toContain('tool_0011');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('found it too');
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['provider_tool_search', target]);
  });

  it('a chat-completions model still gets the meta tools, and meta forces them on a native provider', async () => {
    chat.enqueue(chatText('meta is fine'));
    const viaChat = await runOn(chat, 'native-chat', spec({ model: 'openai-compatible:llama3' }));
    expect(viaChat.finished.state).toBe('completed');
    const chatNames = ((viaChat.requests[0]?.body as ChatBody).tools ?? []).map((tool) => tool.function.name);
    expect(chatNames).toEqual(expect.arrayContaining(['tool_search', 'tool_inspect', 'tool_invoke']));
    expect(chatNames.some((name) => name.startsWith('mcp__big__'))).toBe(false);
    expect(JSON.stringify(viaChat.requests[0]?.body)).not.toContain('defer_loading');

    anthropic.enqueue(anthropicText('meta on anthropic'));
    const forced = await runOn(
      anthropic,
      'native-forced-meta',
      spec({ model: 'anthropic:claude-sonnet-4-5', settings: { toolExposition: 'meta' } }),
    );
    expect(forced.finished.state).toBe('completed');
    const names = ((forced.requests[0]?.body as MessagesBody).tools ?? []).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['tool_search', 'tool_inspect', 'tool_invoke']));
    expect(names).not.toContain('tool_search_tool_bm25');
  });

  it('pauses for an approval after a native search and replays the search blocks when it resumes', async () => {
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_2',
        query: 'increment a counter',
        found: [counterTool],
        call: { id: 'toolu_native_2', name: counterTool, input: { note: 'native-approve' } },
      }),
      anthropicText('counted after approval'),
    );
    const { first, approvalId } = await parkOnCounter(
      anthropic,
      'native-approval',
      'anthropic:claude-sonnet-4-5',
      'native-approve',
    );
    // A gated tool is never deferred: it is offered inline, without defer_loading.
    const offered = (anthropic.requests[first]?.body as MessagesBody).tools?.find((tool) => tool.name === counterTool);
    expect(offered).toBeDefined();
    expect(offered?.defer_loading).toBeUndefined();

    await decide(ctx, { approvalId, approved: true, decidedBy: 'alice' });
    const finished = await waitForJob(queue, 'native-approval', 90_000);
    expect(finished.state).toBe('completed');
    const requests = anthropic.requests.slice(first);
    expect(requests).toHaveLength(2);
    const resumed = requests[1]?.body as MessagesBody;
    const assistant = resumed.messages.find((message) => message.role === 'assistant');
    expect(assistant?.content.map((block) => block.type)).toEqual([
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
    ]);
    expect(assistant?.content[1]).toMatchObject({
      tool_use_id: 'srvtoolu_native_2',
      content: { tool_references: [{ type: 'tool_reference', tool_name: counterTool }] },
    });
    const toolResult = resumed.messages.at(-1)?.content.find((part) => part.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_native_2' });
    expect(toolResult?.is_error ?? false, JSON.stringify(toolResult)).toBe(false);
    expect((await readCounterNotes(counterFile)).filter((note) => note === 'native-approve')).toHaveLength(1);
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('counted after approval');
  });

  it('OpenAI Responses: pauses for an approval after a hosted search and replays its items when it resumes', async () => {
    const answer = openaiToolSearchThenCall({
      query: 'increment a counter',
      found: [{ name: counterTool, description: 'Increments a counter.' }],
      call: { callId: 'call_native_approve', name: counterTool, input: { note: 'openai-approve' } },
    });
    const sent = (answer.body as { output: Block[] }).output;
    openai.enqueue(answer, openaiText('counted after approval'));
    const { first, approvalId } = await parkOnCounter(
      openai,
      'native-openai-approval',
      'openai:gpt-5.4',
      'openai-approve',
    );
    // A gated tool is never deferred: it is offered as a plain function.
    const offered = (openai.requests[first]?.body as ResponsesBody).tools?.find((tool) => tool.name === counterTool);
    expect(offered).toMatchObject({ type: 'function' });
    expect(offered?.defer_loading).toBeUndefined();

    await decide(ctx, { approvalId, approved: true, decidedBy: 'alice' });
    const finished = await waitForJob(queue, 'native-openai-approval', 90_000);
    expect(finished.state).toBe('completed');
    const requests = openai.requests.slice(first);
    expect(requests).toHaveLength(2);
    const [parked, resumed] = requests.map((request) => request.body as ResponsesBody);
    expect(resumed?.tools).toEqual(parked?.tools);
    const input = resumed?.input ?? [];
    const seen = JSON.stringify(input).slice(0, 4000);
    // Each item the API produced goes back as it came, in order: as a reference to the stored item
    // by its id (the search items), or in full (the function call, which the output answers).
    const [searchCall, searchOutput, functionCall] = sent;
    const replayed = input.filter((item) => item.type !== 'message' && item.role === undefined);
    const matches = (item: Block | undefined, original: Block | undefined) =>
      item?.type === 'item_reference'
        ? item.id === original?.id
        : item?.type === original?.type && (item?.call_id ?? null) === (original?.call_id ?? null);
    expect(replayed.length, seen).toBe(4);
    expect(matches(replayed[0], searchCall), seen).toBe(true);
    expect(matches(replayed[1], searchOutput), seen).toBe(true);
    expect(matches(replayed[2], functionCall), seen).toBe(true);
    for (const [index, original] of [searchCall, searchOutput, functionCall].entries()) {
      const item = replayed[index];
      if (item?.type === 'item_reference') continue;
      expect(item, seen).toMatchObject({ type: original?.type });
    }
    if (replayed[0]?.type !== 'item_reference') {
      expect(replayed[0]).toMatchObject({ execution: 'server', arguments: { query: 'increment a counter' } });
      expect(replayed[1]).toMatchObject({ tools: [expect.objectContaining({ name: counterTool })] });
    }
    if (replayed[2]?.type !== 'item_reference') {
      expect(replayed[2]).toMatchObject({ call_id: 'call_native_approve', name: counterTool });
      expect(JSON.parse(String(replayed[2]?.arguments))).toEqual({ note: 'openai-approve' });
    }
    // Then the output of the approved call, which ran once.
    expect(replayed[3]).toMatchObject({ type: 'function_call_output', call_id: 'call_native_approve' });
    expect(String(replayed[3]?.output)).not.toContain('denied');
    expect((await readCounterNotes(counterFile)).filter((note) => note === 'openai-approve')).toHaveLength(1);
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('counted after approval');
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'provider_tool_search', providerExecuted: true }),
      expect.objectContaining({
        toolName: counterTool,
        isError: false,
        approval: expect.objectContaining({ approved: true }),
      }),
    ]);
  });

  it('repairs the input of a call of a found tool and runs it with the repaired input', async () => {
    const target = 'mcp__big__tool0023';
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_3',
        query: 'collection 6',
        found: [target],
        // Wrapped in an `arguments` envelope, as some models do: invalid for the tool's schema.
        call: { id: 'toolu_native_3', name: target, input: { arguments: JSON.stringify({ query: 'repaired' }) } },
      }),
      anthropicText('repaired and done'),
    );
    const { finished, requests } = await runOn(
      anthropic,
      'native-repair',
      spec({ model: 'anthropic:claude-sonnet-4-5', settings: { toolExposition: 'native' } }),
    );
    expect(finished.state).toBe('completed');
    // The cheap repair needs no model call: two requests, the second carrying the repaired call.
    expect(requests).toHaveLength(2);
    const second = requests[1]?.body as MessagesBody;
    const assistant = second.messages.find((message) => message.role === 'assistant');
    expect(assistant?.content.find((block) => block.type === 'tool_use')).toMatchObject({
      id: 'toolu_native_3',
      name: target,
      input: { query: 'repaired' },
    });
    const toolResult = second.messages.at(-1)?.content.find((part) => part.type === 'tool_result');
    expect(toolResult?.is_error ?? false, JSON.stringify(toolResult)).toBe(false);
    expect(JSON.stringify(toolResult?.content)).toContain('repaired');
  });

  it('repairs input no cheap fix makes valid with one call to the same model, then runs the tool', async () => {
    const target = 'mcp__big__tool0031';
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_6',
        query: 'collection 14',
        found: [target],
        // `query` is required and `q` is not allowed: only the model can fix this.
        call: { id: 'toolu_native_6', name: target, input: { q: 'model repair' } },
      }),
      anthropicText(JSON.stringify({ query: 'model repair' })),
      anthropicText('repaired by the model'),
    );
    const { finished, requests } = await runOn(
      anthropic,
      'native-model-repair',
      spec({ model: 'anthropic:claude-sonnet-4-5', settings: { toolExposition: 'native' } }),
    );
    const seen = JSON.stringify(requests.map((request) => request.body)).slice(0, 6000);
    expect(finished.state, seen).toBe('completed');
    expect(requests, seen).toHaveLength(3);
    const [first, repair, last] = requests.map((request) => request.body as MessagesBody & Block);
    // The repair request: the step's input, then the correction request naming the tool, its bad
    // input and its schema, with the schema as the structured output format.
    const ask = repair?.messages.at(-1);
    expect(ask?.role).toBe('user');
    const askText = JSON.stringify(ask?.content);
    expect(askText).toContain(`Your call of tool \\"${target}\\" had invalid input`);
    expect(askText).toContain('model repair');
    expect(JSON.stringify(repair?.output_config ?? repair?.tools)).toContain('"query"');
    expect(repair?.messages[0]?.content[0]).toMatchObject({ type: 'text', text: 'look up record 7' });
    expect(first?.messages[0]?.content[0]).toMatchObject({ type: 'text', text: 'look up record 7' });
    // The next step carries the repaired call and its result.
    const assistant = last?.messages.find((message) => message.role === 'assistant');
    expect(assistant?.content.find((block) => block.type === 'tool_use')).toMatchObject({
      id: 'toolu_native_6',
      name: target,
      input: { query: 'model repair' },
    });
    const toolResult = last?.messages.at(-1)?.content.find((part) => part.type === 'tool_result');
    expect(toolResult?.is_error ?? false, JSON.stringify(toolResult)).toBe(false);
    expect(JSON.stringify(toolResult?.content)).toContain('tool_0031');
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('repaired by the model');
  });

  it('answers a call of a tool that was not offered with a tool error, and the run carries on', async () => {
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_4',
        query: 'ghost',
        found: [],
        call: { id: 'toolu_native_4', name: 'mcp__nowhere__ghost', input: {} },
      }),
      anthropicText('carried on'),
    );
    const { finished, requests } = await runOn(
      anthropic,
      'native-unknown-tool',
      spec({ model: 'anthropic:claude-sonnet-4-5' }),
    );
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(2);
    const second = requests[1]?.body as MessagesBody;
    const toolResult = second.messages.at(-1)?.content.find((part) => part.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_native_4', is_error: true });
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('carried on');
  });

  it('hands an image result to Anthropic as an image block, directly or through tool_invoke, and to a chat model as text', async () => {
    const mediaTool = 'mcp__fx__mediaSample';
    anthropic.enqueue(
      anthropicToolSearchThenUse({
        searchId: 'srvtoolu_native_5',
        query: 'picture',
        found: [mediaTool],
        call: { id: 'toolu_native_5', name: mediaTool, input: {} },
      }),
      anthropicText('saw it'),
    );
    const { finished, requests } = await runOn(
      anthropic,
      'native-image',
      spec({ model: 'anthropic:claude-sonnet-4-5' }),
    );
    expect(finished.state).toBe('completed');
    const second = requests[1]?.body as MessagesBody;
    const toolResult = second.messages.at(-1)?.content.find((part) => part.type === 'tool_result') as
      { content?: Block[] } | undefined;
    expect(toolResult?.content).toEqual([
      { type: 'text', text: expect.stringContaining('a one-pixel picture') },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
      },
    ]);
    // The audio block no provider takes in a tool result stays described in the text.
    expect(JSON.stringify(toolResult?.content)).toContain('[audio: audio/wav, not shown]');

    // Through the meta tools the image of the tool tool_invoke ran is an image block too, not JSON.
    anthropic.enqueue(
      anthropicToolUse({ id: 'toolu_meta_inspect', name: 'tool_inspect', input: { name: mediaTool } }),
      anthropicToolUse({ id: 'toolu_meta_media', name: 'tool_invoke', input: { name: mediaTool, params: {} } }),
      anthropicText('saw it through tool_invoke'),
    );
    const viaMeta = await runOn(
      anthropic,
      'meta-image',
      spec({ model: 'anthropic:claude-sonnet-4-5', settings: { toolExposition: 'meta' } }),
    );
    expect(viaMeta.finished.state).toBe('completed');
    expect(viaMeta.requests).toHaveLength(3);
    const invoked = (viaMeta.requests[2]?.body as MessagesBody).messages
      .at(-1)
      ?.content.find((part) => part.type === 'tool_result') as { tool_use_id?: string; content?: Block[] } | undefined;
    expect(invoked?.tool_use_id).toBe('toolu_meta_media');
    expect(invoked?.content).toEqual([
      { type: 'text', text: expect.stringContaining('a one-pixel picture') },
      expect.objectContaining({
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
      }),
    ]);
    expect(JSON.stringify(invoked?.content?.[0])).not.toContain('iVBORw0KGgo');

    // A chat model gets the same result through tool_invoke as text, the image described.
    chat.enqueue(chatToolCall({ id: 'call_chat_inspect', name: 'tool_inspect', input: { name: mediaTool } }));
    chat.enqueue(chatToolCall({ id: 'call_chat_media', name: 'tool_invoke', input: { name: mediaTool, params: {} } }));
    chat.enqueue(chatText('described'));
    const viaChat = await runOn(chat, 'native-image-chat', spec({ model: 'openai-compatible:llama3' }));
    expect(viaChat.finished.state).toBe('completed');
    const chatResult = JSON.stringify(viaChat.requests[2]?.body);
    expect(chatResult).toContain('a one-pixel picture');
    expect(chatResult).toContain('[image: image/png');
    expect(chatResult).not.toContain('iVBORw0KGgo');
  });
});
