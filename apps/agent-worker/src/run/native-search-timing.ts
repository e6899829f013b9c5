import { agentqTracer, type Context, type Logger } from '@agentq/shared';
import type { RunStore } from '@agentq/store';
import { NATIVE_TOOL_SEARCH_NAME } from '../models/native-tool-search.js';

/** When the last model request of a loop was sent and answered, in epoch ms. */
export interface ModelCallTiming {
  startedAt: number;
  finishedAt: number;
}

type Part = {
  type: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  providerExecuted?: boolean;
};

/** The provider searches of a finished step, each with its result. */
function nativeSearchesOf(content: readonly Part[]) {
  return content.flatMap((part) => {
    if (part.type !== 'tool-call' || part.providerExecuted !== true || part.toolName !== NATIVE_TOOL_SEARCH_NAME)
      return [];
    const result = content.find((other) => other.type === 'tool-result' && other.toolCallId === part.toolCallId);
    return [{ toolCallId: String(part.toolCallId), input: part.input, output: result?.output }];
  });
}

/**
 * Records the provider's tool searches of a finished step as the run's own tool calls are
 * recorded: a journal entry with the model request's timing (so the timeline, the run page and
 * the CLI show its duration), and an `ai.toolCall` span under the step, named and labelled like
 * the SDK's span of a `tool_search` call. Query and results go on the span only with
 * `traceArguments`, as for every other call. Best effort: a failure is logged, the step goes on.
 */
export async function recordNativeSearches(options: {
  content: readonly Part[];
  timing: ModelCallTiming | undefined;
  store: Pick<RunStore, 'recordToolResult'>;
  runId: string;
  incarnation: string | undefined;
  stepContext: Context | undefined;
  traceArguments: boolean;
  logger: Logger;
}): Promise<void> {
  const { timing } = options;
  for (const search of nativeSearchesOf(options.content)) {
    if (options.stepContext) {
      const span = agentqTracer().startSpan(
        'ai.toolCall',
        {
          startTime: timing?.startedAt,
          attributes: {
            'operation.name': 'ai.toolCall',
            'ai.operationId': 'ai.toolCall',
            'ai.toolCall.name': NATIVE_TOOL_SEARCH_NAME,
            'ai.toolCall.id': search.toolCallId,
            'agentq.tool_call.provider_executed': true,
            ...(options.traceArguments
              ? {
                  'ai.toolCall.args': JSON.stringify(search.input ?? null),
                  'ai.toolCall.result': JSON.stringify(search.output ?? null),
                }
              : {}),
          },
        },
        options.stepContext,
      );
      span.end(timing?.finishedAt);
    }
    if (!timing) continue;
    try {
      await options.store.recordToolResult({
        runId: options.runId,
        toolCallId: search.toolCallId,
        result: {
          ok: true,
          output: search.output,
          toolName: NATIVE_TOOL_SEARCH_NAME,
          ...(options.incarnation === undefined ? {} : { incarnation: options.incarnation }),
          startedAt: timing.startedAt,
          finishedAt: timing.finishedAt,
        },
      });
    } catch (error) {
      options.logger.warn(
        { error: (error as Error).message, toolCallId: search.toolCallId },
        'native search timing not recorded',
      );
    }
  }
}
