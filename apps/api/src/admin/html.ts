/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
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

const styles = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
  header { background: #1d232a; color: #fff; padding: 12px 24px; display: flex; gap: 24px; align-items: center; }
  header a { color: #cfe3ff; text-decoration: none; }
  header form { margin-left: auto; }
  main { max-width: 1100px; margin: 24px auto; padding: 0 24px; }
  table { width: 100%; border-collapse: collapse; background: #fff; }
  th, td { text-align: left; padding: 10px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
  pre { margin: 0; max-height: 200px; overflow: auto; font-size: 13px; white-space: pre-wrap; word-break: break-all; }
  .notice { padding: 10px 14px; background: #e8f4ea; border: 1px solid #b9dcc0; margin-bottom: 16px; }
  .error { padding: 10px 14px; background: #fbeaea; border: 1px solid #e8b8b8; margin-bottom: 16px; }
  button { padding: 6px 14px; border-radius: 4px; border: 1px solid #aab; cursor: pointer; }
  button.approve { background: #1f7a3a; color: #fff; border-color: #1f7a3a; }
  button.deny { background: #a32020; color: #fff; border-color: #a32020; }
  input[type=text], input[type=password] { padding: 6px; width: 100%; box-sizing: border-box; }
  .state { font-weight: 600; }
`;

/** The page shell of the admin pages. */
export function page(options: { title: string; body: string; csrf?: string; refreshSeconds?: number }): string {
  const nav =
    options.csrf === undefined
      ? ''
      : `<a href="/admin/approvals">Approvals</a><a href="/admin/queues">Queues</a>
         <form method="post" action="/admin/logout"><input type="hidden" name="_csrf" value="${escapeHtml(options.csrf)}"><button type="submit">Log out</button></form>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)} · agentq</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''}
<style>${styles}</style></head>
<body><header><strong>agentq</strong>${nav}</header><main>${options.body}</main></body></html>`;
}
