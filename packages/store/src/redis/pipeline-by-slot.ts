import type { ChainableCommander } from 'ioredis';
import { isClusterConnection, type RedisConnection } from './create-redis-connection.js';
import { hashSlot } from './hash-slot.js';

/** One command of {@link pipelineBySlot}: the key it touches, and how to add it to a pipeline. */
export interface SlotCommand {
  key: string;
  add(pipeline: ChainableCommander): void;
}

/** Reply of one command: an error, or its value. */
export type PipelineReply = [error: Error | null, value: unknown];

async function run(redis: RedisConnection, commands: readonly SlotCommand[]): Promise<PipelineReply[]> {
  const pipeline = redis.pipeline();
  for (const command of commands) command.add(pipeline);
  return ((await pipeline.exec()) ?? []) as PipelineReply[];
}

/**
 * Runs commands in as few round trips as the connection allows and returns their replies in
 * order. On a single Redis that is one pipeline. A Redis Cluster pipeline may only hold keys of one
 * node, so the commands are grouped by the master that serves their slot and the groups run in
 * parallel; a group the cluster refuses (its slots moved meanwhile) is retried one pipeline per
 * slot.
 */
export async function pipelineBySlot(
  redis: RedisConnection,
  commands: readonly SlotCommand[],
): Promise<PipelineReply[]> {
  if (commands.length === 0) return [];
  if (!isClusterConnection(redis)) return await run(redis, commands);
  const groups = new Map<string, number[]>();
  commands.forEach((command, index) => {
    const slot = hashSlot(command.key);
    const node = redis.slots[slot]?.[0] ?? `slot:${slot}`;
    const group = groups.get(node);
    if (group) group.push(index);
    else groups.set(node, [index]);
  });
  const out = new Array<PipelineReply>(commands.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      let replies: PipelineReply[];
      try {
        replies = await run(
          redis,
          indexes.map((index) => commands[index] as SlotCommand),
        );
      } catch {
        replies = [];
        const bySlot = new Map<number, number[]>();
        for (const index of indexes) {
          const slot = hashSlot((commands[index] as SlotCommand).key);
          bySlot.set(slot, [...(bySlot.get(slot) ?? []), index]);
        }
        const slotReplies = await Promise.all(
          [...bySlot.values()].map(async (slotIndexes) => ({
            slotIndexes,
            replies: await run(
              redis,
              slotIndexes.map((index) => commands[index] as SlotCommand),
            ),
          })),
        );
        const byIndex = new Map<number, PipelineReply>();
        for (const group of slotReplies) {
          group.slotIndexes.forEach((index, position) => byIndex.set(index, group.replies[position] ?? [null, null]));
        }
        replies = indexes.map((index) => byIndex.get(index) ?? [null, null]);
      }
      indexes.forEach((index, position) => {
        out[index] = replies[position] ?? [null, null];
      });
    }),
  );
  return out;
}

/** {@link mgetBySlot}: its commands, and each key's reply read back from theirs. */
export interface SlotMget {
  /** One `MGET` per hash slot (one in all on a single Redis), for {@link pipelineBySlot}. */
  commands: SlotCommand[];
  /**
   * Each key's reply, in the order of the keys, from the replies of `commands` (found at
   * `results[offset]` onwards). A failed `MGET` fails each of its keys.
   */
  replies(results: readonly PipelineReply[], offset: number): PipelineReply[];
}

/**
 * Reads string keys with one `MGET` per hash slot instead of one `GET` each: one command object and
 * one reply for the lot. Unlike `GET`, `MGET` answers `nil` for a key of another type, so a caller
 * that must tell such a key from a missing one reads the keys that came back `nil` again with `GET`.
 */
export function mgetBySlot(redis: RedisConnection, keys: readonly string[]): SlotMget {
  if (keys.length === 0) return { commands: [], replies: () => [] };
  let groups: string[][];
  let positions: Array<[group: number, index: number]>;
  if (!isClusterConnection(redis)) {
    groups = [[...keys]];
    positions = keys.map((_key, index) => [0, index]);
  } else {
    const bySlot = new Map<number, number>();
    groups = [];
    positions = keys.map((key) => {
      const slot = hashSlot(key);
      let group = bySlot.get(slot);
      if (group === undefined) {
        group = groups.length;
        bySlot.set(slot, group);
        groups.push([]);
      }
      const members = groups[group] as string[];
      members.push(key);
      return [group, members.length - 1];
    });
  }
  return {
    commands: groups.map((members) => ({ key: members[0] as string, add: (pipeline) => pipeline.mget(...members) })),
    replies(results, offset) {
      return positions.map(([group, index]): PipelineReply => {
        const [error, values] = results[offset + group] ?? [null, null];
        if (error) return [error, null];
        return [null, Array.isArray(values) ? (values[index] ?? null) : null];
      });
    },
  };
}
