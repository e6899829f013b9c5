import type { SecretRegistry } from '../logging/create-logger.js';
import { maskSecretsDeep } from './mask-secret-values.js';
import { isAllowedSecretName, secretPolicyFromEnv } from './secret-policy.js';

/**
 * The secret values one process knows (its configured keys, the allow-listed `${NAME}` values of
 * its environment, and whatever it resolves later), masked out of everything it passes on.
 */
export interface SecretValueSet extends SecretRegistry {
  /** The values so far, each at least 4 characters long. */
  values(): readonly string[];
  /** `value` with every known secret masked, in every string at any depth (see {@link maskSecretsDeep}). */
  mask<T>(value: T): T;
}

// Masking walks a tool's whole output; deeper parts are replaced rather than passed on unread, and
// no honest tool result nests this deep.
const maskDepth = 64;

/** A {@link SecretValueSet} starting with `initial`. */
export function createSecretValueSet(initial: Iterable<string> = []): SecretValueSet {
  const known = new Set<string>();
  let snapshot: readonly string[] = [];
  const set: SecretValueSet = {
    add(values) {
      let changed = false;
      for (const value of values) {
        if (value.length < 4 || known.has(value)) continue;
        known.add(value);
        changed = true;
      }
      if (changed) snapshot = [...known];
    },
    values: () => snapshot,
    mask: (value) => maskSecretsDeep(value, snapshot, maskDepth),
  };
  set.add(initial);
  return set;
}

/**
 * Values of every variable in `env` that a server definition or a secret setting may name as
 * `${NAME}` (`AGENTQ_SECRET_*` and `AGENTQ_SECRET_NAMES`): whichever of them a tool echoes, it is a
 * secret of this process. A malformed policy yields what the prefix alone allows; resolving reports
 * the policy error itself.
 */
export function allowListedSecretValues(env: Record<string, string | undefined>): string[] {
  let names: ReadonlySet<string> = new Set();
  try {
    names = secretPolicyFromEnv(env).names;
  } catch {
    // Resolution fails loudly with CONFIG_INVALID; masking still covers the prefixed names.
  }
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < 4) continue;
    if (isAllowedSecretName(name, { names, hosts: new Map() })) out.push(value);
  }
  return out;
}
