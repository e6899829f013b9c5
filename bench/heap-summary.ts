import { readFile } from 'node:fs/promises';

/**
 * What a heap holds more than another, by constructor: `tsx bench/heap-summary.ts <idle> <busy> [runs]`
 * reads two V8 heap snapshots (`AGENTQ_BENCH_HEAP_SNAPSHOTS` of the worker-latency-bound bench
 * writes them) and prints the groups that grew most, in bytes of their own (shallow) size and per
 * run when `runs` is given. Closures are grouped by function name, strings and arrays by type, so
 * a group points at the code that allocates it.
 */

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

async function groupsOf(file: string): Promise<Map<string, Group>> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as HeapSnapshotFile;
  const fields = parsed.snapshot.meta.node_fields;
  const types = parsed.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let index = 0; index < parsed.nodes.length; index += width) {
    const type = types[parsed.nodes[index + typeAt] as number] as string;
    const name = parsed.strings[parsed.nodes[index + nameAt] as number] as string;
    const key =
      type === 'object' || type === 'closure' || type === 'native'
        ? `${type} ${name}`
        : type === 'hidden' || type === 'code' || type === 'object shape'
          ? `${type} ${name.slice(0, 60)}`
          : type;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += parsed.nodes[index + sizeAt] as number;
    groups.set(key, group);
  }
  return groups;
}

const [idleFile, busyFile, runsText] = process.argv.slice(2);
if (!idleFile || !busyFile) {
  process.stderr.write('usage: tsx bench/heap-summary.ts <idle.heapsnapshot> <busy.heapsnapshot> [runs]\n');
  process.exit(2);
}
const runs = Number(runsText ?? 1) || 1;
const idle = await groupsOf(idleFile);
const busy = await groupsOf(busyFile);
const rows = [...busy].map(([key, group]) => {
  const before = idle.get(key) ?? { count: 0, bytes: 0 };
  return { key, count: group.count - before.count, bytes: group.bytes - before.bytes };
});
rows.sort((a, b) => b.bytes - a.bytes);
const total = rows.reduce((sum, row) => sum + row.bytes, 0);
process.stdout.write(`total grown: ${(total / 1024 / runs).toFixed(2)} KB per run (${runs} runs)\n`);
for (const row of rows.slice(0, Number(process.env.TOP ?? 45))) {
  process.stdout.write(
    `${(row.bytes / 1024 / runs).toFixed(2).padStart(8)} KB  ${(row.count / runs).toFixed(1).padStart(7)} objects  ${row.key}\n`,
  );
}
