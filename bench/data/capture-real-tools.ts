// Captures the real tool lists of the reference MCP servers installed from npm, by spawning each
// over stdio with the MCP SDK client and calling tools/list. Writes real-mcp-tools.json next to
// this file. Run it again after upgrading those packages:
//   npx tsx bench/data/capture-real-tools.ts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = (name: string) => join(here, '..', '..', 'node_modules', '.bin', name);

export interface CapturedServer {
  id: string;
  name: string;
  package: string;
  tools: Array<{ name: string; title?: string; description?: string; inputSchema: Record<string, unknown> }>;
}

async function capture(
  id: string,
  name: string,
  pkg: string,
  command: string,
  args: string[],
): Promise<CapturedServer> {
  const client = new Client({ name: 'agentq-bench-capture', version: '0.1.0' });
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  await client.connect(transport);
  try {
    const listed = await client.listTools();
    return {
      id,
      name,
      package: pkg,
      tools: listed.tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema as Record<string, unknown>,
      })),
    };
  } finally {
    await client.close();
  }
}

const root = await mkdtemp(join(tmpdir(), 'agentq-capture-'));
try {
  const servers = [
    await capture(
      'everything',
      'Everything',
      '@modelcontextprotocol/server-everything',
      bin('mcp-server-everything'),
      [],
    ),
    await capture('memory', 'Memory', '@modelcontextprotocol/server-memory', bin('mcp-server-memory'), []),
    await capture('filesystem', 'Filesystem', '@modelcontextprotocol/server-filesystem', bin('mcp-server-filesystem'), [
      root,
    ]),
  ];
  const out = join(here, 'real-mcp-tools.json');
  await writeFile(out, `${JSON.stringify({ capturedAt: new Date().toISOString(), servers }, null, 2)}\n`);
  console.log(`wrote ${out}: ${servers.map((server) => `${server.id} ${server.tools.length}`).join(', ')}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
