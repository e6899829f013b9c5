import { AgentqError, ValidationError } from '@agentq/shared';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerChangeEvent, readServersFile } from './server-store.js';

const directory = mkdtempSync(join(tmpdir(), 'agentq-servers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function importError(path: string): Promise<AgentqError> {
  try {
    await readServersFile(path);
  } catch (error) {
    if (AgentqError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${path} to be rejected`);
}

describe('readServersFile', () => {
  it('reads the YAML list form', async () => {
    const path = file(
      'list.yaml',
      `servers:
  - id: everything
    transport: { type: stdio, command: mcp-server-everything }
  - id: remote
    name: Remote
    transport:
      type: streamable-http
      url: https://mcp.example.com/mcp
      headers: { Authorization: "Bearer \${REMOTE_TOKEN}" }
    alwaysAsk: ['*']
`,
    );
    const definitions = await readServersFile(path);
    expect(definitions.map((definition) => definition.id)).toEqual(['everything', 'remote']);
    expect(definitions[1]).toMatchObject({ name: 'Remote', alwaysAsk: ['*'], enabled: true });
    // Placeholders are kept as written: secrets are resolved only where a server is connected.
    expect(definitions[1]!.transport).toMatchObject({ headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } });
  });

  it('reads the YAML map form, taking ids from the keys', async () => {
    const path = file(
      'map.yml',
      `servers:
  everything:
    transport: { type: stdio, command: mcp-server-everything }
  memory:
    enabled: false
    transport: { type: stdio, command: mcp-server-memory }
`,
    );
    const definitions = await readServersFile(path);
    expect(definitions.map((definition) => [definition.id, definition.enabled])).toEqual([
      ['everything', true],
      ['memory', false],
    ]);
  });

  it('reads JSON in the list, map and bare-list forms', async () => {
    const transport = { type: 'sse', url: 'http://127.0.0.1:9/sse' };
    const list = file('list.json', JSON.stringify({ servers: [{ id: 'a', transport }] }));
    const map = file('map.json', JSON.stringify({ servers: { b: { transport } } }));
    const bare = file('bare.json', JSON.stringify([{ id: 'c', transport }]));
    expect((await readServersFile(list))[0]!.id).toBe('a');
    expect((await readServersFile(map))[0]!.id).toBe('b');
    expect((await readServersFile(bare))[0]!.id).toBe('c');
  });

  it('reads an empty file as no servers', async () => {
    expect(await readServersFile(file('empty.yaml', ''))).toEqual([]);
  });

  it('names the file, the server and the field of every bad entry', async () => {
    const path = file(
      'bad.yaml',
      `servers:
  - id: good
    transport: { type: stdio, command: node }
  - id: github
    transport: { type: streamable-http, url: ftp://nope }
  - id: memory
    transport: { type: stdio, command: node }
    timeouts: { callMs: -1 }
`,
    );
    const error = await importError(path);
    expect(error.code).toBe('IMPORT_INVALID');
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.field)).toEqual([
      'servers.github.transport.url',
      'servers.memory.timeouts.callMs',
    ]);
    expect(error.message).toContain(path);
    expect(error.message).toContain('servers.github.transport.url');
  });

  it('labels an entry without an id by its position', async () => {
    const error = await importError(file('noid.yaml', 'servers:\n  - transport: { type: stdio, command: node }\n'));
    expect((error as ValidationError).issues[0]!.field).toBe('servers.#0.id');
  });

  it('rejects an id inside a map entry that disagrees with its key', async () => {
    const error = await importError(
      file('mismatch.yaml', 'servers:\n  github:\n    id: gitlab\n    transport: { type: stdio, command: node }\n'),
    );
    expect(error.code).toBe('IMPORT_INVALID');
    expect(error.field).toBe('servers.github.id');
    const same = file(
      'same.yaml',
      'servers:\n  github:\n    id: github\n    transport: { type: stdio, command: node }\n',
    );
    expect((await readServersFile(same))[0]!.id).toBe('github');
  });

  it('rejects duplicate ids', async () => {
    const error = await importError(
      file(
        'dup.yaml',
        `- id: same
  transport: { type: stdio, command: a }
- id: same
  transport: { type: stdio, command: b }
`,
      ),
    );
    expect(error.code).toBe('IMPORT_INVALID');
    expect(error.field).toBe('servers.same.id');
  });

  it('rejects unreadable files, broken syntax and the wrong shape with IMPORT_INVALID', async () => {
    const missing = await importError(join(directory, 'missing.yaml'));
    expect(missing.code).toBe('IMPORT_INVALID');
    expect(missing.message).toContain('missing.yaml');
    expect((await importError(file('broken.json', '{"servers": ['))).code).toBe('IMPORT_INVALID');
    expect((await importError(file('broken.yaml', 'servers: [\n  - id: x\n   bad indent'))).code).toBe(
      'IMPORT_INVALID',
    );
    expect((await importError(file('shape.yaml', 'just a string'))).code).toBe('IMPORT_INVALID');
    expect((await importError(file('extra.yaml', 'servers: []\nserver: []\n'))).code).toBe('IMPORT_INVALID');
  });
});

describe('parseServerChangeEvent', () => {
  it('parses a valid event and returns null for garbage', () => {
    expect(parseServerChangeEvent('{"type":"remove","serverId":"a"}')).toEqual({ type: 'remove', serverId: 'a' });
    expect(parseServerChangeEvent('not json')).toBeNull();
    expect(parseServerChangeEvent('{"type":"explode","serverId":"a"}')).toBeNull();
  });
});
