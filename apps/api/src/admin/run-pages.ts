import {
  LISTED_RUN_STATES,
  promptOfRun,
  runDurationMs,
  runTimingOf,
  type RunList,
  type RunTimeline,
  type RunTimelineCall,
} from '@agentq/client';
import { QUEUE_NAMES, toolSearchCallSummary } from '@agentq/shared';
import { BULL_BOARD_PATH } from './register-bull-board.js';
import { toolOutputImages, withoutImageData } from './tool-output-images.js';
import { escapeHtml, formatDuration, formatTime, page } from './html.js';

/** Text longer than this starts collapsed. */
const COLLAPSE_AFTER = 400;

/** Seconds between refreshes of a page whose run is still moving (`requested` when given). */
function refreshSecondsOf(state: string, requested: number | undefined): number | undefined {
  if (state === 'completed' || state === 'failed' || state === 'unknown') return undefined;
  // The refresh holds while a form is being filled in (see LIVE_REFRESH_SCRIPT); a pending decision
  // still gets a slower one, so the page does not flicker under someone reading the request.
  return requested ?? (state === 'waiting-approval' || state === 'waiting-input' ? 10 : 2);
}

/** A run's duration as its header shows it: from enqueue, across pauses, with the approval waits. */
/** The prompt cache part of the tokens cell, when the provider reported any. */
function cacheNote(usage: RunTimeline['usage']): string {
  const read = usage.cacheReadInputTokens;
  const written = usage.cacheCreationInputTokens;
  if (read === undefined && written === undefined) return '';
  return `; cache: ${read ?? 0} read, ${written ?? 0} written`;
}

function durationCell(timeline: RunTimeline): string {
  const { run } = timeline;
  const timing =
    timeline.timing ??
    runTimingOf({ enqueuedAt: run.createdAt, finishedAt: run.finishedAt, approvals: [], now: Date.now() });
  const finished = timing.finishedAt !== undefined;
  const waits =
    timing.approvalWaitMs > 0 ? `, ${formatDuration(timing.approvalWaitMs)} of it waiting for approval` : '';
  return `<td id="run-duration" data-duration-ms="${timing.totalMs}" data-approval-wait-ms="${timing.approvalWaitMs}">${escapeHtml(
    formatDuration(timing.totalMs),
  )}${finished ? '' : ' so far'}${escapeHtml(waits)}</td>`;
}

/** A value as readable text: strings as they are, anything else as indented JSON. */
function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/** A labelled block of text, collapsed when long. */
function block(label: string, value: unknown, className: string): string {
  const text = pretty(value);
  const open = text.length <= COLLAPSE_AFTER ? ' open' : '';
  return `<details class="${className}"${open}><summary>${escapeHtml(label)}${
    open ? '' : ` <span class="muted">(${text.length} characters)</span>`
  }</summary><pre>${escapeHtml(text)}</pre></details>`;
}

const statusLabels: Record<RunTimelineCall['status'], string> = {
  ok: 'ok',
  error: 'tool error',
  refused: 'refused',
  denied: 'denied',
  'awaiting-approval': 'awaiting approval',
  running: 'running',
  interrupted: 'interrupted',
};

function approvalBlock(call: RunTimelineCall, options: { csrf: string; runId: string }): string {
  const record = call.approval;
  if (!record) return '';
  const { request, decision, outcome } = record;
  const id = escapeHtml(request.approvalId);
  if (decision) {
    return `<div class="approval decided" data-approval-id="${id}">Approval <code>${id}</code>: <strong>${
      decision.approved ? 'approved' : 'denied'
    }</strong> by <strong class="decided-by">${escapeHtml(decision.decidedBy)}</strong>${
      decision.via ? ` via <span class="via">${escapeHtml(decision.via)}</span>` : ''
    } at ${escapeHtml(formatTime(decision.decidedAt))}${decision.reason ? `: ${escapeHtml(decision.reason)}` : ''}</div>`;
  }
  if (outcome) {
    return `<div class="approval decided" data-approval-id="${id}">Approval <code>${id}</code>: <strong>${escapeHtml(
      typeof outcome === 'string' ? outcome : pretty(outcome),
    )}</strong></div>`;
  }
  const server =
    request.serverId === undefined
      ? ' (a builtin tool)'
      : ` on MCP server <code class="server">${escapeHtml(request.serverId)}</code>`;
  return `<div class="approval pending" data-approval-id="${id}">Waiting for a decision${server} since ${escapeHtml(
    formatTime(request.requestedAt),
  )} (expires ${escapeHtml(formatTime(request.expiresAt))}).
  <form method="post" action="/admin/approvals/${encodeURIComponent(request.approvalId)}/decision">
    <input type="hidden" name="_csrf" value="${escapeHtml(options.csrf)}">
    <input type="hidden" name="next" value="/admin/runs/${escapeHtml(encodeURIComponent(options.runId))}">
    <input type="text" name="reason" placeholder="Reason (optional)" aria-label="Reason">
    <button type="submit" name="decision" value="approve" class="approve">Approve</button>
    <button type="submit" name="decision" value="deny" class="deny">Deny</button>
  </form></div>`;
}

/** A call's arguments; a `tool_exec` script as the code it is, not as an escaped JSON string. */
function argumentsBlock(call: RunTimelineCall): string {
  if (call.input === undefined) return '';
  const code = (call.input as { code?: unknown } | null)?.code;
  if (call.toolName === 'tool_exec' && typeof code === 'string') {
    return `<details class="arguments script" open><summary>Script</summary><pre><code>${escapeHtml(code)}</code></pre></details>`;
  }
  return block('Arguments', call.input, 'arguments');
}

/** What a tool search asked and found, the meta `tool_search` and the provider's search alike. */
function searchLine(call: RunTimelineCall): string {
  const summary = toolSearchCallSummary(call);
  if (!summary || (summary.query === undefined && summary.found === undefined)) return '';
  const query = summary.query === undefined ? '' : ` <q class="search-query">${escapeHtml(summary.query)}</q>`;
  const found =
    summary.found === undefined
      ? ''
      : ` → <span class="search-found" data-found="${summary.found.length}">${summary.found.length} found${
          summary.found.length === 0
            ? ''
            : `: ${summary.found.map((name) => `<code>${escapeHtml(name)}</code>`).join(', ')}`
        }</span>`;
  return `<div class="search">Search${query}${found}</div>`;
}

function callItem(call: RunTimelineCall, options: { csrf: string; runId: string }): string {
  const duration =
    call.durationMs === undefined ? '' : ` <span class="duration">${formatDuration(call.durationMs)}</span>`;
  const inner =
    call.inner.length === 0
      ? ''
      : `<ol class="calls inner">${call.inner.map((nested) => callItem(nested, options)).join('\n')}</ol>`;
  return `<li class="call status-${call.status}" data-tool-call-id="${escapeHtml(call.toolCallId)}" data-tool="${escapeHtml(
    call.toolName,
  )}">
  <div class="call-head"><code class="tool">${escapeHtml(call.toolName)}</code> <span class="badge badge-${
    call.status
  }">${escapeHtml(statusLabels[call.status])}</span>${duration}</div>
  ${searchLine(call)}
  ${argumentsBlock(call)}
  ${call.output === undefined ? '' : block(call.status === 'ok' ? 'Result' : 'Answer', withoutImageData(call.output), 'result')}
  ${call.output === undefined ? '' : toolOutputImages(call.output)}
  ${approvalBlock(call, options)}
  ${inner}
</li>`;
}

/** The questions a run parked on, each with where to answer it. */
function pendingQuestions(run: RunTimeline['run']): string {
  if (run.pendingElicitations.length === 0) return '';
  const items = run.pendingElicitations.map((question) => {
    const id = escapeHtml(question.elicitationId);
    return `<div class="question" data-elicitation-id="${id}">
  <p><code>${escapeHtml(question.serverId)}</code> asks during <code>${escapeHtml(question.toolName)}</code> (expires ${escapeHtml(
    formatTime(question.expiresAt),
  )}):</p>
  <p class="message">${escapeHtml(question.message)}</p>
  <p class="muted">Answer it in the <a href="/admin/approvals">inbox</a>, with <code>agentq elicitations answer ${id}</code> or <code>POST /v1/elicitations/${id}/answer</code>.</p>
</div>`;
  });
  return `<h2>Waiting for input</h2>\n<section id="pending-questions">${items.join('\n')}</section>`;
}

/** The catalog versions a step was shown, one `server@version` each (readable with `agentq catalog --version`). */
function catalogVersionsLine(versions: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(versions ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return '';
  const items = entries.map(([serverId, version]) => `<code>${escapeHtml(serverId)}@${escapeHtml(version)}</code>`);
  return `<p class="catalog-versions muted">catalog: ${items.join(' ')}</p>`;
}

/** The page of one run: header, then a timeline of steps with their tool calls and approvals. */
export function runPage(options: {
  timeline: RunTimeline;
  csrf: string;
  /** Seconds between refreshes while the run moves. @default 10 waiting for approval, else 2 */
  refreshSeconds?: number;
}): string {
  const { timeline, csrf } = options;
  const { run } = timeline;
  const runId = run.runId;
  const versions = Object.entries(timeline.catalogVersion);
  const steps = timeline.steps
    .map(
      (step) => `<section class="step" data-step="${step.step}">
  <h3>Step ${step.step + 1} <span class="muted">· ${escapeHtml(step.finishReason)} · ${step.usage.totalTokens} tokens</span></h3>
  ${catalogVersionsLine(step.catalogVersion)}
  ${step.text ? `<div class="model-text">${escapeHtml(step.text)}</div>` : ''}
  ${step.calls.length === 0 ? '' : `<ol class="calls">${step.calls.map((call) => callItem(call, { csrf, runId })).join('\n')}</ol>`}
</section>`,
    )
    .join('\n');
  const inProgress =
    timeline.inProgress.length === 0
      ? ''
      : `<section class="step in-progress"><h3>Step in progress</h3><ol class="calls">${timeline.inProgress
          .map((call) => callItem(call, { csrf, runId }))
          .join('\n')}</ol></section>`;
  // Bull Board names a shard's run queue `<shard>.agent-runs`.
  const queueName = timeline.shard ? `${timeline.shard}.${QUEUE_NAMES.agentRuns}` : QUEUE_NAMES.agentRuns;
  const jobLink = `${BULL_BOARD_PATH}/queue/${encodeURIComponent(queueName)}/${encodeURIComponent(runId)}`;
  return page({
    title: `Run ${runId}`,
    csrf,
    refreshSeconds: refreshSecondsOf(run.state, options.refreshSeconds),
    body: `<h1>Run <code>${escapeHtml(runId)}</code></h1>
<table class="header">
  <tr><th>State</th><td><span class="state state-${escapeHtml(run.state)}" id="run-state">${escapeHtml(run.state)}</span></td></tr>
  <tr><th>Model</th><td><code id="run-model">${escapeHtml(run.spec?.assistant.model ?? '—')}</code></td></tr>
  <tr><th>Prompt</th><td><pre id="run-prompt">${escapeHtml(promptOfRun(run.spec?.input) ?? '—')}</pre></td></tr>
  <tr><th>Enqueued</th><td>${escapeHtml(formatTime(run.createdAt))}</td></tr>
  <tr><th>Duration since enqueued</th>${durationCell(timeline)}</tr>
  <tr><th>Tokens</th><td id="run-tokens">${timeline.usage.totalTokens} (${timeline.usage.inputTokens} in, ${timeline.usage.outputTokens} out${cacheNote(timeline.usage)})</td></tr>
  <tr><th>Catalog</th><td>${
    versions.length === 0
      ? '—'
      : versions
          .map(([server, version]) => `<code>${escapeHtml(server)}</code> ${escapeHtml(version.slice(0, 12))}`)
          .join(', ')
  }</td></tr>
  <tr><th>Job</th><td><a id="bull-board-link" href="${escapeHtml(jobLink)}">${escapeHtml(QUEUE_NAMES.agentRuns)} job in Bull Board</a> · attempts ${run.attemptsMade}</td></tr>
</table>
${timeline.warnings.map((warning) => `<div class="error">${escapeHtml(warning.message)}</div>`).join('\n')}
${pendingQuestions(run)}
<h2>Timeline</h2>
${steps || (inProgress ? '' : '<p id="no-steps" class="muted">No step has finished yet.</p>')}
${inProgress}
${run.result ? `<h2>Result</h2><pre id="run-result">${escapeHtml(run.result.text)}</pre>` : ''}
${run.error ? `<h2>Error</h2><pre id="run-error">${escapeHtml(run.error.message)}</pre>` : ''}`,
  });
}

/** The list of recent runs, with a filter by state and pages. */
export function runsListPage(options: { list: RunList; state?: string; csrf: string }): string {
  const { list, state, csrf } = options;
  const link = (filter: string | undefined, offset: number) => {
    const query = new URLSearchParams();
    if (filter) query.set('state', filter);
    if (offset > 0) query.set('offset', String(offset));
    const text = query.toString();
    return `/admin/runs${text ? `?${text}` : ''}`;
  };
  const filters = [undefined, ...LISTED_RUN_STATES]
    .map(
      (filter) =>
        `<a class="filter${filter === state ? ' current' : ''}" href="${escapeHtml(link(filter, 0))}">${escapeHtml(
          filter ?? 'all',
        )}</a>`,
    )
    .join(' ');
  const rows = list.runs
    .map(
      (run) => `<tr data-run-id="${escapeHtml(run.runId)}">
  <td><a href="/admin/runs/${escapeHtml(encodeURIComponent(run.runId))}"><code>${escapeHtml(run.runId)}</code></a></td>
  <td><span class="state state-${escapeHtml(run.state)}">${escapeHtml(run.state)}</span></td>
  <td><code>${escapeHtml(run.model ?? '—')}</code></td>
  <td>${escapeHtml(run.prompt ?? '—')}</td>
  <td>${escapeHtml(formatTime(run.createdAt))}</td>
  <td>${escapeHtml(formatTime(run.finishedAt))}</td>
  <td class="run-duration" data-duration-ms="${runDurationMs(run)}">${escapeHtml(formatDuration(runDurationMs(run)))}${
    run.finishedAt === undefined ? ' so far' : ''
  }</td>
  <td class="run-tokens">${run.totalTokens === undefined ? '—' : run.totalTokens}</td>
</tr>`,
    )
    .join('\n');
  const last = Math.min(list.offset + list.runs.length, list.total);
  const previous =
    list.offset > 0
      ? `<a id="previous-page" href="${escapeHtml(link(state, Math.max(0, list.offset - list.limit)))}">← newer</a>`
      : '';
  const next =
    list.offset + list.limit < list.total
      ? `<a id="next-page" href="${escapeHtml(link(state, list.offset + list.limit))}">older →</a>`
      : '';
  return page({
    title: 'Runs',
    csrf,
    refreshSeconds: 10,
    body: `<h1>Runs</h1>
<p class="filters">State: ${filters}</p>
${
  list.runs.length === 0
    ? '<p id="empty">No runs here.</p>'
    : `<table id="runs"><thead><tr><th>Run</th><th>State</th><th>Model</th><th>Prompt</th><th>Created</th><th>Finished</th><th>Duration</th><th>Tokens</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p class="pages">${list.total === 0 ? '' : `${list.offset + 1}–${last} of ${list.total}`} ${previous} ${next}</p>`,
  });
}
