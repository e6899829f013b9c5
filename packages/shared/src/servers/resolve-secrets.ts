import { NonRetryableError } from '../errors/non-retryable-error.js';
import type { ServerDefinition, ServerTransport } from '../schemas/server-definition.js';

const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A definition with its secrets resolved, plus the resolved values for log redaction. */
export interface ResolvedServerDefinition {
  definition: ServerDefinition;
  /** Every value substituted for a placeholder. Never log, store or enqueue these. */
  secretValues: string[];
}

/**
 * Replaces `${ENV_NAME}` placeholders in a definition's transport (args, env, cwd, URL and headers)
 * with values from `env`. Call it only in the process that connects; never store the result.
 * A missing variable fails with code `SECRET_MISSING`, naming the variable, server and field.
 */
export function resolveSecrets(
  definition: ServerDefinition,
  env: Record<string, string | undefined> = process.env,
): ResolvedServerDefinition {
  const secretValues: string[] = [];
  const resolve = (text: string, field: string): string =>
    text.replace(placeholder, (_match, name: string) => {
      const value = env[name];
      if (value === undefined || value === '') {
        throw new NonRetryableError({
          code: 'SECRET_MISSING',
          field,
          message: `Server ${definition.id}: environment variable ${name} (used in ${field}) is not set`,
        });
      }
      secretValues.push(value);
      return value;
    });
  const resolveMap = (map: Record<string, string>, field: string) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, resolve(value, `${field}.${key}`)]));

  const transport: ServerTransport =
    definition.transport.type === 'stdio'
      ? {
          ...definition.transport,
          args: definition.transport.args.map((arg, index) => resolve(arg, `transport.args.${index}`)),
          env: resolveMap(definition.transport.env, 'transport.env'),
          cwd: definition.transport.cwd === undefined ? undefined : resolve(definition.transport.cwd, 'transport.cwd'),
        }
      : {
          ...definition.transport,
          url: resolve(definition.transport.url, 'transport.url'),
          headers: resolveMap(definition.transport.headers, 'transport.headers'),
        };
  return { definition: { ...definition, transport }, secretValues };
}
