import { digestOf } from '../json/canonical-json.js';
import type { ServerDefinition } from '../schemas/server-definition.js';

/**
 * Hash of what decides which server a definition talks to: its id and its transport (command,
 * arguments, environment, URL, headers), still with `${ENV}` placeholders unresolved. Display name,
 * approval lists and timeouts do not change the tools a server offers, so they do not invalidate
 * its cached list. Stable whatever the key order.
 */
export function definitionHash(definition: Pick<ServerDefinition, 'id' | 'transport'>): string {
  return digestOf({ id: definition.id, transport: definition.transport }, 32);
}
