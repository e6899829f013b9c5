/**
 * Summarizes a V8 CPU profile (`.cpuprofile`, e.g. from `AGENTQ_BENCH_PROFILE`): busy time by
 * owner (the deepest frame of each sample that belongs to a known library or to agentq decides),
 * then the top functions by self time.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ZOD = 'zod run by agentq';

/** Owners in the order they are tried on each frame. */
const OWNERS: ReadonlyArray<[string, RegExp]> = [
  ['Redis client (ioredis, BullMQ)', /node_modules\/(ioredis|@ioredis|bullmq|redis-parser|cluster-key-slot)\//],
  ['HTTP to the model (fetch, undici)', /node_modules\/undici\/|deps\/undici/],
  ['AI SDK (with the zod it runs)', /node_modules\/(@ai-sdk\/[^/]+|ai)\//],
  ['MCP client (with the zod it runs)', /node_modules\/@modelcontextprotocol|packages\/mcp-connect/],
  [ZOD, /node_modules\/zod\//],
  ['logging and telemetry', /node_modules\/(pino|@opentelemetry)/],
  ['agentq', /\/(apps|packages)\/[^/]+\/src\//],
];

function ownerOf(node: ProfileNode): string | undefined {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle';
  return OWNERS.find(([, pattern]) => pattern.test(url))?.[0];
}

function print(title: string, totals: Map<string, number>, busy: number, top: number): void {
  console.log(`\n${title}`);
  for (const [name, micros] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
  }
}

async function main(): Promise<void> {
  const [file, topText = '25'] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    // zod belongs to whoever runs it: the AI SDK, the MCP client, or agentq.
    let owner: string | undefined;
    let inZod = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const found = ownerOf(byId.get(at) as ProfileNode);
      if (found === ZOD) inZod = true;
      if (found === undefined || found === ZOD) continue;
      owner = inZod && found === 'agentq' ? ZOD : found;
      break;
    }
    if (owner === undefined && inZod) owner = ZOD;
    if (owner === 'idle') continue;
    owner ??= 'other (Node internals, timers, microtasks)';
    busy += micros;
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
    const where = url.replace(/^file:\/\//, '').replace(/.*node_modules\//, '');
    const name = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  console.log(`busy: ${(busy / 1000).toFixed(0)} ms`);
  print('by owner', owners, busy, OWNERS.length + 3);
  print('by function, self time', functions, busy, Number(topText));
}

await main();
