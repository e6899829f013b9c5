import {
  AgentqError,
  checkServerDefinition,
  definitionHash,
  type Logger,
  parseJsonOrYaml,
  safeParseJson,
  type ServerChangeEvent,
  serverChangeEventSchema,
  type ServerDefinition,
  type ServerDefinitionInput,
  serverDefinitionSchema,
  type ServerOrigin,
  type ServerPolicy,
  serverPolicyFromEnv,
  silentLogger,
  ValidationError,
  type ValidationIssue,
} from '@agentq/shared';
import { type KeyNames, keyNames } from '../keys.js';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { runStoreScript } from '../scripts/store-scripts.js';

/** Options of {@link ServerStore}. */
export interface ServerStoreOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  logger?: Logger;
  /**
   * What definitions from the `api` origin may do, and which secrets any definition may name.
   * @default read from `process.env` at the first write
   */
  policy?: ServerPolicy;
}

/** Options of {@link ServerStore.put}. */
export interface PutServerOptions {
  /**
   * Who is writing. The store is the operator's own access to Redis, hence the default; the
   * client's `putServer` and the REST API write as `api`.
   * @default 'operator'
   */
  origin?: ServerOrigin;
}

/** A stored definition that failed validation when read back. */
export interface CorruptServerEntry {
  serverId: string;
  error: ValidationError;
}

// Each failed round means another writer succeeded, so N racing writers finish within N rounds.
const maxCompareAndSetAttempts = 100;

/**
 * MCP server definitions in Redis (`P:servers`, id → JSON). Definitions are validated on the way
 * in and on the way out; secrets stay as `${ENV}` placeholders. Every write increments
 * `P:servers.version` in the same script or transaction. Every change publishes a
 * {@link ServerChangeEvent} on `P:servers.changed` for warmers.
 */
export class ServerStore {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;
  private readonly logger: Logger;
  private policy: ServerPolicy | undefined;

  constructor(options: ServerStoreOptions) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.logger = (options.logger ?? silentLogger()).child({ component: 'server-store' });
    this.policy = options.policy;
  }

  // Read lazily: a malformed policy variable fails the write that needs it, not every reader.
  private currentPolicy(): ServerPolicy {
    this.policy ??= serverPolicyFromEnv(process.env);
    return this.policy;
  }

  /** Valid definitions sorted by id. Corrupt entries are logged and skipped. */
  async list(): Promise<ServerDefinition[]> {
    return (await this.listWithErrors()).servers;
  }

  /** Valid definitions plus the corrupt entries that were skipped. */
  async listWithErrors(): Promise<{ servers: ServerDefinition[]; corrupt: CorruptServerEntry[] }> {
    const all = await this.redis.hgetall(this.keys.servers);
    const servers: ServerDefinition[] = [];
    const corrupt: CorruptServerEntry[] = [];
    for (const [serverId, text] of Object.entries(all)) {
      const parsed = this.parseStored(serverId, text);
      if (parsed.success) servers.push(parsed.data);
      else corrupt.push({ serverId, error: parsed.error });
    }
    servers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { servers, corrupt };
  }

  /**
   * One definition as stored: its exact text (what compare-and-set writers compare against) and
   * its parse, or `null` when there is none. A corrupt one is logged and answered with its error.
   */
  async getStored(
    serverId: string,
  ): Promise<
    { text: string; definition: ServerDefinition; error?: undefined } | { text: string; error: ValidationError } | null
  > {
    const text = await this.redis.hget(this.keys.servers, serverId);
    if (text === null) return null;
    const parsed = this.parseStored(serverId, text);
    return parsed.success ? { text, definition: parsed.data } : { text, error: parsed.error };
  }

  /** The exact stored text of one definition, `null` when there is none. Never parsed. */
  async getText(serverId: string): Promise<string | null> {
    return await this.redis.hget(this.keys.servers, serverId);
  }

  /** Whether a definition (valid or not) is stored under `serverId`. */
  async has(serverId: string): Promise<boolean> {
    return (await this.redis.hexists(this.keys.servers, serverId)) === 1;
  }

  /** Which of `serverIds` have a definition stored (valid or not), in one round trip. */
  async existing(serverIds: readonly string[]): Promise<Set<string>> {
    if (serverIds.length === 0) return new Set();
    const texts = await this.redis.hmget(this.keys.servers, ...serverIds);
    return new Set(serverIds.filter((_serverId, index) => typeof texts[index] === 'string'));
  }

  /** One definition, or `null` when it is missing or corrupt (corrupt ones are logged). */
  async get(serverId: string): Promise<ServerDefinition | null> {
    const text = await this.redis.hget(this.keys.servers, serverId);
    if (text === null) return null;
    const parsed = this.parseStored(serverId, text);
    return parsed.success ? parsed.data : null;
  }

  /**
   * Creates or replaces a definition. Returns the stored, defaulted value. Checked against the
   * policy for its origin first: `FORBIDDEN` for a stdio command the API may not define,
   * `VALIDATION` naming a secret the definition may not use (see `checkServerDefinition`).
   */
  async put(input: ServerDefinitionInput, options: PutServerOptions = {}): Promise<ServerDefinition> {
    const parsed = serverDefinitionSchema.safeParse(input);
    if (!parsed.success) throw ValidationError.fromZod('server definition', parsed.error);
    const definition = parsed.data;
    checkServerDefinition(definition, { origin: options.origin ?? 'operator', policy: this.currentPolicy() });
    const text = JSON.stringify(definition);
    // Compare-and-set, so that the event's previousHash is the hash of what this write replaced
    // even when another writer got in between: warmers decide "restart or not" from it.
    for (let attempt = 0; attempt < maxCompareAndSetAttempts; attempt += 1) {
      const previousText = await this.redis.hget(this.keys.servers, definition.id);
      const previous = previousText === null ? null : this.parseStored(definition.id, previousText);
      const event: ServerChangeEvent = {
        type: 'put',
        serverId: definition.id,
        definitionHash: definitionHash(definition),
        previousHash: previous?.success ? definitionHash(previous.data) : undefined,
      };
      const done = await this.compareAndSet(definition.id, previousText ?? '', text, event);
      if (Number(done) === 1) return definition;
    }
    throw new AgentqError({ code: 'CONFLICT', message: `MCP server ${definition.id} kept changing; try again` });
  }

  /** Removes a definition. Returns whether it existed. */
  async remove(serverId: string): Promise<boolean> {
    const previous = await this.redis.hget(this.keys.servers, serverId);
    if (previous === null) return false;
    const event: ServerChangeEvent = { type: 'remove', serverId };
    const results = await this.redis
      .multi()
      .hdel(this.keys.servers, serverId)
      .incr(this.keys.serversVersion)
      .publish(this.keys.serversChanged, JSON.stringify(event))
      .exec();
    return Number(results?.[0]?.[1] ?? 0) > 0;
  }

  /**
   * Turns a server on or off. Throws `NOT_FOUND` for an unknown or corrupt server. Returns the
   * updated definition.
   */
  async setEnabled(serverId: string, enabled: boolean): Promise<ServerDefinition> {
    for (let attempt = 0; attempt < maxCompareAndSetAttempts; attempt += 1) {
      const text = await this.redis.hget(this.keys.servers, serverId);
      const current = text === null ? null : this.parseStored(serverId, text);
      if (text === null || current === null || !current.success) {
        throw new AgentqError({
          code: 'NOT_FOUND',
          message: `MCP server ${serverId} does not exist`,
          field: 'serverId',
        });
      }
      const next: ServerDefinition = { ...current.data, enabled };
      const hash = definitionHash(next);
      const event: ServerChangeEvent = {
        type: enabled ? 'enabled' : 'disabled',
        serverId,
        definitionHash: hash,
        previousHash: hash,
      };
      const done = await this.compareAndSet(serverId, text, JSON.stringify(next), event);
      if (Number(done) === 1) return next;
    }
    throw new AgentqError({ code: 'CONFLICT', message: `MCP server ${serverId} kept changing; try again` });
  }

  /**
   * Imports definitions from a YAML or JSON file: either `{ servers: [...] }`, a list, or a map of
   * id → definition. All or nothing: one bad entry imports none, and the error names the file, the
   * server and the field. Imports are the operator's: stdio commands and unbound secrets are
   * allowed, but every `${NAME}` must still be an allowed secret (`VALIDATION` naming it).
   */
  async importFile(path: string): Promise<ServerDefinition[]> {
    const definitions = await readServersFile(path);
    if (definitions.length === 0) return [];
    const issues: ValidationIssue[] = [];
    for (const definition of definitions) {
      try {
        checkServerDefinition(definition, {
          origin: 'operator',
          policy: this.currentPolicy(),
          fieldPrefix: `servers.${definition.id}.`,
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (issues.length > 0) throw new ValidationError({ what: `servers file ${path}`, issues });
    const previous = new Map((await this.list()).map((definition) => [definition.id, definition]));
    const transaction = this.redis.multi();
    for (const definition of definitions) {
      transaction.hset(this.keys.servers, definition.id, JSON.stringify(definition));
    }
    transaction.incr(this.keys.serversVersion);
    for (const definition of definitions) {
      const before = previous.get(definition.id);
      const event: ServerChangeEvent = {
        type: 'put',
        serverId: definition.id,
        definitionHash: definitionHash(definition),
        previousHash: before ? definitionHash(before) : undefined,
      };
      transaction.publish(this.keys.serversChanged, JSON.stringify(event));
    }
    await transaction.exec();
    return definitions;
  }

  private async compareAndSet(
    serverId: string,
    expectedText: string,
    text: string,
    event: ServerChangeEvent,
  ): Promise<number> {
    const keys = [this.keys.servers, this.keys.serversChanged, this.keys.serversVersion];
    return Number(
      await runStoreScript(this.redis, 'serverCompareAndSet', keys, [
        serverId,
        expectedText,
        text,
        JSON.stringify(event),
      ]),
    );
  }

  private parseStored(serverId: string, text: string) {
    const parsed = safeParseJson(text, serverDefinitionSchema, `stored server definition ${serverId}`);
    if (!parsed.success) {
      this.logger.warn(
        { serverId, code: parsed.error.code, field: parsed.error.field, error: parsed.error.message },
        'skipping corrupt server definition',
      );
    } else if (parsed.data.id !== serverId) {
      const error = new ValidationError({
        what: `stored server definition ${serverId}`,
        issues: [{ field: 'id', message: `does not match its key (${parsed.data.id})` }],
      });
      this.logger.warn({ serverId, error: error.message }, 'skipping corrupt server definition');
      return { success: false as const, error };
    }
    return parsed;
  }
}

const fileShape = z.union([
  z.strictObject({ servers: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]) }),
  z.array(z.unknown()),
]);

/**
 * Reads and validates a servers file without touching Redis. Throws a `ValidationError` with code
 * `IMPORT_INVALID` naming the file, the server and the field of every problem.
 */
export async function readServersFile(path: string): Promise<ServerDefinition[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AgentqError({
      code: 'IMPORT_INVALID',
      message: `${path}: cannot read file (${(error as Error).message})`,
      cause: error,
    });
  }
  const raw = parseJsonOrYaml(text, {
    what: `servers file ${path}`,
    json: extname(path).toLowerCase() === '.json',
    code: 'IMPORT_INVALID',
  });
  if (raw === null || raw === undefined) return [];
  const shape = fileShape.safeParse(raw);
  if (!shape.success) {
    throw new ValidationError({
      what: `servers file ${path}`,
      code: 'IMPORT_INVALID',
      issues: [{ field: '', message: 'expected `servers:` with a list or a map of definitions' }],
    });
  }
  const entries: Array<{ label: string; value: unknown; key?: string }> = [];
  const list = Array.isArray(shape.data) ? shape.data : shape.data.servers;
  if (Array.isArray(list)) {
    list.forEach((value, index) => {
      const id =
        typeof value === 'object' && value !== null && 'id' in value
          ? String((value as { id: unknown }).id)
          : `#${index}`;
      entries.push({ label: id, value });
    });
  } else {
    for (const [id, value] of Object.entries(list)) {
      entries.push({
        label: id,
        key: id,
        value: typeof value === 'object' && value !== null ? { id, ...value } : value,
      });
    }
  }
  const issues: ValidationIssue[] = [];
  const definitions: ServerDefinition[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const parsed = serverDefinitionSchema.safeParse(entry.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        issues.push({
          field: `servers.${entry.label}.${issue.path.map(String).join('.')}`.replace(/\.$/, ''),
          message: issue.message,
        });
      }
      continue;
    }
    // In the map form the key is the id: an inner `id` that disagrees would import the wrong server.
    if (entry.key !== undefined && parsed.data.id !== entry.key) {
      issues.push({ field: `servers.${entry.label}.id`, message: `does not match its key (${parsed.data.id})` });
      continue;
    }
    if (seen.has(parsed.data.id)) {
      issues.push({ field: `servers.${entry.label}.id`, message: 'duplicate server id' });
      continue;
    }
    seen.add(parsed.data.id);
    definitions.push(parsed.data);
  }
  if (issues.length > 0) {
    throw new ValidationError({ what: `servers file ${path}`, code: 'IMPORT_INVALID', issues });
  }
  return definitions;
}

/** Parses a `P:servers.changed` message; `null` (after logging) when it is malformed. */
export function parseServerChangeEvent(text: string, logger?: Logger): ServerChangeEvent | null {
  const parsed = safeParseJson(text, serverChangeEventSchema, 'server change event');
  if (parsed.success) return parsed.data;
  logger?.warn({ error: parsed.error.message }, 'ignoring malformed server change event');
  return null;
}
