/** What a masked secret value is replaced with. */
export const SECRET_MASK = '[redacted]';

/**
 * Replaces every occurrence of the given secret values (for example the `secretValues` of
 * {@link resolveSecrets}) in `text`. Values shorter than 4 characters are left alone: masking them
 * would shred ordinary text without protecting anything.
 */
export function maskSecretValues(text: string, secretValues: Iterable<string>): string {
  let out = text;
  for (const secret of secretValues) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  return out;
}
