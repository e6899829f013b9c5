import { revealHiddenCharacters } from '@agentq/shared';
import { LIVE_REFRESH_SCRIPT_PATH } from './live-refresh-script.js';

/**
 * Escapes text for HTML element content and attribute values, and shows its hidden characters
 * (controls, bidi and zero-width characters) as `\uXXXX`: what a model, an MCP server or a tool
 * wrote is displayed as it is, so `notes/\u202Egnp.exe` cannot read as `notes/exe.png` to the
 * person approving the call. Values a form sends back unchanged use {@link escapeHtmlExact}.
 */
export function escapeHtml(value: unknown): string {
  return escapeHtmlExact(revealHiddenCharacters(String(value)));
}

/**
 * Escapes markup only, keeping every character: for attribute values a form sends back and the
 * server compares with the original (an elicitation's field names and allowed values).
 */
export function escapeHtmlExact(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A timestamp as ISO text, or a dash. */
export function formatTime(epochMs: number | undefined): string {
  return epochMs === undefined
    ? '—'
    : new Date(epochMs)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}

/** A duration as `850 ms`, `2.4 s` or `3 min 05 s`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1_000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1_000).toFixed(1)} s`;
  const seconds = Math.round(milliseconds / 1_000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

const styles = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
  header { background: #1d232a; color: #fff; padding: 12px 24px; display: flex; gap: 24px; align-items: center; }
  header a { color: #cfe3ff; text-decoration: none; }
  header form { margin-left: auto; }
  main { max-width: 1100px; margin: 24px auto; padding: 0 24px; }
  table { width: 100%; border-collapse: collapse; background: #fff; }
  th, td { text-align: left; padding: 10px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
  pre { margin: 0; max-height: 200px; overflow: auto; font-size: 13px; white-space: pre-wrap; word-break: break-all; }
  .tool-image { display: block; max-width: 100%; max-height: 320px; margin: 4px 0; border: 1px solid #ddd; }
  .notice { padding: 10px 14px; background: #e8f4ea; border: 1px solid #b9dcc0; margin-bottom: 16px; }
  .error { padding: 10px 14px; background: #fbeaea; border: 1px solid #e8b8b8; margin-bottom: 16px; }
  button { padding: 6px 14px; border-radius: 4px; border: 1px solid #aab; cursor: pointer; }
  button.approve { background: #1f7a3a; color: #fff; border-color: #1f7a3a; }
  button.deny { background: #a32020; color: #fff; border-color: #a32020; }
  input[type=text], input[type=password] { padding: 6px; width: 100%; box-sizing: border-box; }
  .state { font-weight: 600; }
  .muted { color: #6b7480; font-weight: normal; }
  table.header th { width: 120px; color: #4b5560; }
  .step { background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
  .step h3 { margin: 0 0 8px; font-size: 16px; }
  .model-text { white-space: pre-wrap; margin-bottom: 8px; }
  ol.calls { list-style: none; padding-left: 0; margin: 0; }
  ol.calls.inner { margin: 8px 0 0 24px; border-left: 3px solid #cfd6df; padding-left: 12px; }
  li.call { border-top: 1px solid #eef0f3; padding: 8px 0; }
  .call-head { display: flex; gap: 10px; align-items: baseline; }
  .badge { font-size: 12px; padding: 1px 8px; border-radius: 10px; background: #e8f4ea; color: #1f5a2e; }
  .badge-error, .badge-denied, .badge-interrupted { background: #fbeaea; color: #8a1c1c; }
  .badge-refused { background: #fff3d6; color: #7a5300; }
  .badge-awaiting-approval, .badge-running { background: #e6efff; color: #1b4a9c; }
  .duration { color: #6b7480; font-size: 13px; }
  details { margin: 4px 0; }
  summary { cursor: pointer; color: #4b5560; font-size: 13px; }
  .approval { margin-top: 6px; padding: 8px 10px; background: #f3f6fa; border-radius: 4px; }
  .approval.pending { background: #fff8e6; border: 1px solid #f0d9a0; }
  .approval form { display: flex; gap: 8px; margin-top: 6px; }
  .approval form input[type=text] { flex: 1; }
  .filters a, .pages a { margin-right: 8px; }
  .filters a.current { font-weight: 700; }
  .server-state { font-weight: 600; }
  .server-state-connected { color: #1f7a3a; } .server-state-stale { color: #a66b00; }
  .server-state-error, .server-state-corrupt, .server-state-auth-required, .server-state-auth-failed { color: #a32020; } .server-state-never-warmed, .server-state-disabled { color: #4b5560; }
`;

/**
 * The page shell of the admin pages. `refreshSeconds` reloads the page that often through
 * {@link LIVE_REFRESH_SCRIPT}, which holds the reload while a form is being filled in; without
 * scripts, a plain meta refresh does it.
 */
export function page(options: { title: string; body: string; csrf?: string; refreshSeconds?: number }): string {
  const nav =
    options.csrf === undefined
      ? ''
      : `<a href="/admin/runs">Runs</a><a href="/admin/approvals">Approvals</a><a href="/admin/catalog">Catalog</a><a href="/admin/queues">Queues</a>
         <form method="post" action="/admin/logout"><input type="hidden" name="_csrf" value="${escapeHtml(options.csrf)}"><button type="submit">Log out</button></form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)} · agentq</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${
  options.refreshSeconds
    ? `<noscript><meta http-equiv="refresh" content="${options.refreshSeconds}"></noscript>
<script src="${LIVE_REFRESH_SCRIPT_PATH}" defer></script>`
    : ''
}
<style>${styles}</style></head>
<body${options.refreshSeconds ? ` data-refresh-seconds="${options.refreshSeconds}"` : ''}><header><strong>agentq</strong>${nav}</header><main>${options.body}</main></body></html>`;
}
