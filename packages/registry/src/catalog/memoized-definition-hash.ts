import { definitionHash, type ServerDefinition } from '@agentq/shared';

const hashes = new WeakMap<ServerDefinition, string>();

/**
 * `definitionHash` from shared, memoised per definition object: the reader hands out the same
 * object while a definition's stored text is unchanged, so a steady-state sync hashes nothing.
 */
export function memoizedDefinitionHash(definition: ServerDefinition): string {
  let hash = hashes.get(definition);
  if (hash === undefined) {
    hash = definitionHash(definition);
    hashes.set(definition, hash);
  }
  return hash;
}
