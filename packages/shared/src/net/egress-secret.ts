import { NonRetryableError } from '../errors/non-retryable-error.js';
import { maskSecretValues } from '../servers/mask-secret-values.js';
import { hostMatchesPattern } from '../servers/secret-policy.js';

/**
 * A resolved secret that an outgoing request carries (in a header or its URL), and the hosts it
 * may go to. The caller that resolved the secret says so: the fetch guard never guesses which
 * headers are credentials from their names.
 */
export interface EgressSecret {
  /** The resolved value. Never log, store or enqueue it. */
  value: string;
  /**
   * Host patterns the secret is bound to (`AGENTQ_SECRET_HOSTS`: exact names or `*.domain`);
   * undefined when it is not bound.
   */
  hosts?: readonly string[];
}

// A value is matched as the Headers class stores it: trimmed. An empty value would match anything.
function valuesOf(secrets: readonly EgressSecret[]): string[] {
  return secrets.map((secret) => secret.value.trim()).filter((value) => value !== '');
}

/**
 * Deletes from `headers` every header whose value carries one of `secrets` (any name: `x-api-key`,
 * `x-subscription-token`, a custom MCP header), for a redirect that leaves the origin.
 */
export function dropSecretHeaders(headers: Headers, secrets: readonly EgressSecret[]): void {
  const values = valuesOf(secrets);
  if (values.length === 0) return;
  const carrying: string[] = [];
  headers.forEach((value, name) => {
    if (values.some((secret) => value.includes(secret))) carrying.push(name);
  });
  for (const name of carrying) headers.delete(name);
}

/**
 * Refuses a request hop that would send a bound secret (in a header or in the URL) to a host
 * outside its binding: `NonRetryableError` with code `SECRET_HOST_MISMATCH`, naming the host with
 * every secret masked, never a value. Checked before every hop, so a binding holds for redirect
 * targets as well as for the first URL.
 */
export function assertSecretHosts(options: {
  url: URL;
  headers: Headers;
  secrets: readonly EgressSecret[];
  label?: string;
}): void {
  const { url, headers, secrets } = options;
  if (!secrets.some((secret) => secret.hosts !== undefined)) return;
  const carried: string[] = [url.href];
  headers.forEach((value) => carried.push(value));
  for (const secret of secrets) {
    const value = secret.value.trim();
    if (secret.hosts === undefined || value === '') continue;
    if (!carried.some((text) => text.includes(value))) continue;
    if (secret.hosts.some((pattern) => hostMatchesPattern(url.hostname, pattern))) continue;
    throw new NonRetryableError({
      code: 'SECRET_HOST_MISMATCH',
      field: 'transport.url',
      message: `${options.label ?? 'Outgoing request'}: a secret bound by AGENTQ_SECRET_HOSTS may not be sent to ${maskSecretValues(url.host, valuesOf(secrets))}`,
    });
  }
}
