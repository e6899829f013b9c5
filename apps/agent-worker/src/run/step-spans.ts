import {
  activeContext,
  agentqTracer,
  contextWithSpan,
  recordSpanError,
  reparentingTracer,
  type Context,
  type Span,
} from '@agentq/shared';

/** The AI SDK's spans of one step: they hang under the run's step span. */
const stepScopedSpans = new Set(['ai.generateText.doGenerate', 'ai.toolCall']);

/**
 * The `agentq.run.step` spans of one model loop. Step spans hang under the attempt (not under the
 * SDK's generateText span they finish in), and the approvals a step asks for carry its context,
 * so the wait and the decision join the trace. A step's span opens when its first piece of work
 * starts (the model call, or the approved tool calls a resume executes first) and ends once its
 * checkpoint is written; the SDK's model and tool call spans of the step hang under it.
 */
export class StepSpans {
  private readonly attemptContext: Context = activeContext();
  private open: { span: Span; context: Context } | undefined;
  private reparenting: ReturnType<typeof reparentingTracer> | undefined;

  constructor(private readonly runId: string) {}

  /**
   * The tracer to hand the SDK: it puts the step-scoped spans under the open step. Made on first
   * use, so an untraced loop, which hands the SDK none, holds none.
   */
  get tracer(): ReturnType<typeof reparentingTracer> {
    this.reparenting ??= reparentingTracer({
      tracer: agentqTracer(),
      parentOf: (name) => (stepScopedSpans.has(name) ? this.current().context : undefined),
    });
    return this.reparenting;
  }

  /** The span of the step at work, opened on first use. */
  current(): { span: Span; context: Context } {
    if (!this.open) {
      const span = agentqTracer().startSpan(
        'agentq.run.step',
        { attributes: { 'agentq.run.id': this.runId } },
        this.attemptContext,
      );
      this.open = { span, context: contextWithSpan(this.attemptContext, span) };
    }
    return this.open;
  }

  /** Hands over the finishing step's span (the caller ends it); the next work opens a new one. */
  take(): Span {
    const span = this.current().span;
    this.open = undefined;
    return span;
  }

  /** Records `error` on a step cut short (an abort, a failed model call), if one is open. */
  fail(error: unknown): void {
    if (this.open) recordSpanError(this.open.span, error);
  }

  /** Ends the span of a step that never finished, if one is open. */
  close(): void {
    this.open?.span.end();
    this.open = undefined;
  }
}
