import { createHash, createHmac } from 'node:crypto';

/**
 * Signs a `tool-approval-request` the way the AI SDK verifies it when a run is given
 * `experimental_toolApprovalSecret`: HMAC-SHA256 over the approval id, the tool call id, the tool
 * name and a SHA-256 digest of the canonical JSON of the call's input, base64url without padding.
 *
 * The SDK signs the requests it issues itself, but under its own approval ids; the worker renames
 * them to deterministic ids (so a re-run finds the same approval), which voids those signatures.
 * The worker therefore signs, right before each model loop, exactly the requests its own approval
 * records approve. A unit test runs the SDK's verification against this function, so a change of
 * the SDK's format fails there rather than in production.
 */
export function signToolApproval(options: {
  secret: Uint8Array;
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}): string {
  const inputDigest = base64url(createHash('sha256').update(sdkCanonicalJson(options.input), 'utf8').digest());
  const payload = `${options.approvalId}\n${options.toolCallId}\n${options.toolName}\n${inputDigest}`;
  return base64url(createHmac('sha256', options.secret).update(payload, 'utf8').digest());
}

/** The SDK's canonical JSON: object keys sorted, no whitespace. */
function sdkCanonicalJson(value: unknown): string {
  if (value === null || value === undefined || typeof value !== 'object') return String(JSON.stringify(value));
  if (Array.isArray(value)) return `[${value.map(sdkCanonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${sdkCanonicalJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}
