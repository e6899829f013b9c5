import { createToolCallRepair, type ToolCallRepairCandidate } from '@agentq/registry';
import { activeSpan, type Logger } from '@agentq/shared';
import type {
  Experimental_DownloadFunction as DownloadFunction,
  LanguageModel,
  ToolCallRepairFunction,
  ToolSet,
} from 'ai';

/**
 * The run's tool-call repair, recording what it could not fix. A call of a tool the request did
 * not offer (a name the model made up, or a deferred tool it never searched for) and input no
 * fix made valid both go back to the model as a tool error, and the run carries on; each is
 * recorded as a repair candidate: a warning in the run's log (run id, tool call id, tool name,
 * reason) and an `agentq.tool_call.repair_candidate` event on the step's span.
 */
export function createRunToolCallRepair(options: {
  model: LanguageModel;
  logger: Logger;
  abortSignal: AbortSignal | undefined;
  /** The attempt's guarded download of the messages' URLs, shared with the model loop. */
  download: DownloadFunction;
  /** Also told of each candidate. @default none */
  onCandidate?: (candidate: ToolCallRepairCandidate) => void;
}): ToolCallRepairFunction<ToolSet> {
  return createToolCallRepair({
    model: options.model,
    logger: options.logger,
    abortSignal: options.abortSignal,
    download: options.download,
    onCandidate: (candidate) => {
      // The model chose the name and the id, at any length: the log line and the span keep a bounded part.
      const shown = { ...candidate, toolCallId: bounded(candidate.toolCallId), toolName: bounded(candidate.toolName) };
      options.logger.warn({ repairCandidate: shown }, 'a tool call could not be repaired; the model got a tool error');
      activeSpan()?.addEvent('agentq.tool_call.repair_candidate', {
        'agentq.tool_call.id': shown.toolCallId,
        'agentq.tool_call.name': shown.toolName,
        'agentq.tool_call.repair_reason': candidate.reason,
      });
      options.onCandidate?.(candidate);
    },
  });
}

// Longest model-chosen name or id a log line carries; longer ones are cut with a count.
const SHOWN_NAME_LENGTH = 200;

function bounded(text: string): string {
  return text.length <= SHOWN_NAME_LENGTH ? text : `${text.slice(0, SHOWN_NAME_LENGTH)}… (${text.length} characters)`;
}
