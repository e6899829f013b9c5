import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChainableCommander } from 'ioredis';
import type { RedisConnection } from '../redis/create-redis-connection.js';

/** The folder of the Lua scripts: `packages/store/scripts`, beside `src` and `dist`. */
const SCRIPTS_DIR = fileURLToPath(new URL('../../scripts/', import.meta.url));

/** One Lua script of the store, named by its file `<name>-<numkeys>.lua`. */
export interface StoreScript {
  /** The command name it is defined under, in camel case: `lease-renew-1.lua` → `leaseRenew`. */
  readonly command: string;
  readonly numberOfKeys: number;
  readonly lua: string;
}

const FILE_NAME = /^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-(\d+)\.lua$/;

function commandNameOf(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Reads every script of the store once: the catalogue `defineStoreScripts` defines. */
export function readStoreScripts(dir = SCRIPTS_DIR): ReadonlyMap<string, StoreScript> {
  const scripts = new Map<string, StoreScript>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.lua')) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`store script ${file} is not named <name>-<numkeys>.lua`);
    const command = commandNameOf(match[1]!);
    if (scripts.has(command)) throw new Error(`two store scripts define the command ${command}`);
    scripts.set(command, { command, numberOfKeys: Number(match[2]), lua: readFileSync(`${dir}${file}`, 'utf8') });
  }
  return scripts;
}

let catalogue: ReadonlyMap<string, StoreScript> | undefined;
const defined = new WeakSet<object>();

/**
 * Defines every store script on `redis` with `defineCommand`, once per connection: ioredis then
 * sends `EVALSHA` and falls back to `EVAL` (and so loads the script) only when the server lacks it.
 */
export function defineStoreScripts(redis: RedisConnection): void {
  if (defined.has(redis)) return;
  catalogue ??= readStoreScripts();
  for (const script of catalogue.values()) {
    redis.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  defined.add(redis);
}

type ScriptArgument = string | number | Buffer;

/**
 * Runs the store script `command` with its keys and arguments, on a connection or inside a
 * pipeline or transaction of one (queued there, and answered by its `exec`). A pipeline or
 * transaction only knows the scripts its connection had when it was made: call
 * {@link defineStoreScripts} before making it.
 */
export function runStoreScript(
  redis: RedisConnection,
  command: string,
  keys: readonly string[],
  args: readonly ScriptArgument[],
): Promise<unknown>;
export function runStoreScript(
  redis: RedisConnection,
  command: string,
  keys: readonly string[],
  args: readonly ScriptArgument[],
  batch: ChainableCommander,
): ChainableCommander;
export function runStoreScript(
  redis: RedisConnection,
  command: string,
  keys: readonly string[],
  args: readonly ScriptArgument[],
  batch?: ChainableCommander,
): Promise<unknown> | ChainableCommander {
  defineStoreScripts(redis);
  const script = catalogue?.get(command);
  if (!script) throw new Error(`unknown store script ${command}`);
  if (keys.length !== script.numberOfKeys) {
    throw new Error(`store script ${command} takes ${script.numberOfKeys} keys, not ${keys.length}`);
  }
  const target = (batch ?? redis) as unknown as Record<string, (...values: ScriptArgument[]) => unknown>;
  const call = target[command];
  if (typeof call !== 'function') throw new Error(`store script ${command} is not defined on this connection`);
  return call.call(target, ...keys, ...args) as Promise<unknown> | ChainableCommander;
}
