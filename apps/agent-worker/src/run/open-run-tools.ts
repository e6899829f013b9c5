import { applyMetaToolEffects, type RunToolState } from '@agentq/registry';
import { AgentqError, type Logger, type RunCheckpoint } from '@agentq/shared';
import { randomUUID } from 'node:crypto';
import type { NativeToolSearch } from '@agentq/registry';
import { buildRunTools, type RunTools } from './build-run-tools.js';
import { crashPoint } from './crash-hook.js';
import { pinRunTools } from './pin-run-tools.js';
import {
  recordToolExecutions,
  toolJournalContext,
  type RecordToolExecutionsOptions,
} from './record-tool-executions.js';
import type { RunScope } from './run-scope.js';
import type { RecordedToolResult, RunFence, RunStore } from '@agentq/store';
import type { ElicitationParkedError } from '../elicitations/elicitation-parked-error.js';
import type { ElicitationRun } from '../elicitations/elicitation-scope.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';

/** Options of {@link openRunTools}. */
export interface OpenRunToolsOptions extends RunScope {
  /** The checkpoint the attempt starts from: its tool state and the names it showed the model. */
  checkpoint: RunCheckpoint;
  /** The run's tool journal as read when this attempt started. */
  recorded: Map<string, RecordedToolResult>;
  contextWindow: number;
  /** The provider's own tool search, when the run's exposition uses it (`nativeToolSearchFor`). */
  native: NativeToolSearch | undefined;
  fence: RunFence | undefined;
  logger: Logger;
}

/** An attempt's tools and the state they share with the checkpoint. */
export interface OpenedRunTools {
  runTools: RunTools;
  /** The run's tool state, restored from the checkpoint and changed by meta tool calls. */
  state: RunToolState;
  /** Aborted when it turns out that another worker has taken the run over. */
  attempt: AbortController;
  /**
   * The attempt's tool journal, the model loop's `experimental_context`: the run's tools are
   * shared by every run, and each call finds its run's journal there.
   */
  journal: RecordToolExecutionsOptions;
}

/**
 * Builds an attempt's tools, each wrapped in the tool journal (see {@link recordToolExecutions}):
 * a call executes at most once whatever happens to the process, and a journaled one replays.
 */
export async function openRunTools(options: OpenRunToolsOptions): Promise<OpenedRunTools> {
  const { checkpoint, dependencies, logger } = options;
  // This attempt's id marks its tool-call claims.
  const attemptId = randomUUID();
  const attempt = new AbortController();
  const state: RunToolState = {
    allowedNames: [...checkpoint.allowedNames],
    inspectedNames: [...checkpoint.inspectedNames],
  };
  const built = await buildRunTools({
    spec: options.spec,
    registry: dependencies.registry,
    reader: dependencies.reader,
    caller: dependencies.caller,
    maxToolResultBytes: dependencies.config.toolResultMaxBytes,
    contextWindow: options.contextWindow,
    state,
    shownNames: checkpoint.wireNames,
    logger,
    embedding: dependencies.embedding,
    enrichments: dependencies.enrichments,
    codeSandbox: dependencies.codeSandbox,
    native: options.native,
    wrap: recordToolExecutions,
  });
  const { catalog, store } = dependencies;
  // Snapshots outlive every run shown them: twice a finished run's lifetime from each attempt.
  const runTools = catalog
    ? await pinRunTools({
        runTools: built,
        pinned: checkpoint.catalogVersion,
        shownNames: checkpoint.wireNames,
        snapshots: catalog,
        ttlSeconds: 2 * store.finishedTtlSeconds,
        logger,
      })
    : built;
  const journal = toolJournalContext(new AttemptToolJournal({ ...options, attemptId, attempt, state }));
  return { runTools, state, attempt, journal };
}

/**
 * How an attempt's tools are journalled: {@link recordToolExecutions}'s journal for this attempt.
 * Its callbacks are methods, so an attempt holds one object for them, not a closure each.
 */
class AttemptToolJournal implements RecordToolExecutionsOptions {
  readonly runId: string;
  readonly incarnation: string;
  readonly store: RunStore;
  readonly recorded: Map<string, RecordedToolResult>;
  readonly owner: string;
  readonly fence: RunFence | undefined;
  readonly secrets: RunProcessorDependencies['secrets'];
  readonly elicitations: ElicitationRun;
  private readonly env: RunProcessorDependencies['env'];
  private readonly attempt: AbortController;
  private readonly state: RunToolState;

  constructor(options: OpenRunToolsOptions & { attemptId: string; attempt: AbortController; state: RunToolState }) {
    const { dependencies, runId } = options;
    this.runId = runId;
    this.incarnation = options.incarnation;
    this.store = dependencies.store;
    this.recorded = options.recorded;
    this.owner = options.attemptId;
    this.fence = options.fence;
    this.secrets = dependencies.secrets;
    this.elicitations = {
      redis: dependencies.redis,
      prefix: dependencies.prefix,
      shardIndex: dependencies.shardIndex,
      runId,
      incarnation: options.incarnation,
      timeoutMs: options.spec.approval.timeoutMs ?? dependencies.config.approvalTimeoutMs,
      secrets: dependencies.secrets,
    };
    this.env = dependencies.env;
    this.attempt = options.attempt;
    this.state = options.state;
  }

  // The attempt stops with the park as its reason; the run processor parks the run on it.
  onElicitationParked(error: ElicitationParkedError): void {
    this.attempt.abort(error);
  }

  onLockLost(): void {
    this.attempt.abort(new AgentqError({ code: 'LOCK_LOST', message: 'the run moved to another worker' }));
  }

  // No progress report per tool call: the step's write reports it, and the journal's claim
  // (tool name, start time) is what shows a call still running.
  onExecute(): void {
    crashPoint('before-tool', this.runId, this.env);
  }

  onRecorded(): void {
    crashPoint('after-tool-result', this.runId, this.env);
  }

  // The journal may be ahead of the checkpoint (a crash between a result and its step's write): a
  // replayed meta tool result re-applies its effects, or a tool_inspect the model saw would be
  // forgotten and the next tool_invoke refused.
  onReplay({ toolName, input, recorded }: { toolName: string; input: unknown; recorded: RecordedToolResult }): void {
    if ('ok' in recorded && recorded.ok) applyMetaToolEffects(this.state, { toolName, input, output: recorded.output });
  }
}
