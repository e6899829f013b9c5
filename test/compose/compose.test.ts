import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configVariables } from '@agentq/shared';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const composeText = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
const dockerfileText = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The process roles of `agentq` (ARCHITECTURE.md, "Process roles and scaling"). */
const cliRoles = ['dev', 'warmer', 'worker', 'api', 'indexer'];
const cliEntry = 'apps/cli/src/bin.ts';

interface ComposeService {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition?: string }>;
  deploy?: { replicas?: number };
  ports?: string[];
  healthcheck?: { test?: string[] | string };
}

function loadCompose(): { services: Record<string, ComposeService> } {
  const document = parseDocument(composeText, { merge: true });
  expect(document.errors).toEqual([]);
  return document.toJS() as { services: Record<string, ComposeService> };
}

/** Every string value in a parsed YAML tree (comments excluded). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Role services: everything built from the agentq image (not Redis, nor the cluster profile's nodes). */
function roleServices(): Array<[string, ComposeService]> {
  return Object.entries(loadCompose().services).filter(([name]) => name !== 'redis' && !name.startsWith('redis-'));
}

describe('docker-compose.yml', () => {
  it('parses, and runs Redis 7 with AOF, noeviction and a ping healthcheck', () => {
    const redis = loadCompose().services.redis;
    expect(redis?.image).toBe('redis:7');
    const command = Array.isArray(redis?.command) ? redis.command : String(redis?.command).split(/\s+/);
    expect(command[0]).toBe('redis-server');
    expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
    expect(command[command.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
    const test = redis?.healthcheck?.test;
    expect(Array.isArray(test) ? test.join(' ') : test).toMatch(/redis-cli ping$/);
  });

  it('has a cluster profile of three Redis masters with AOF and noeviction, joined by redis-cli', () => {
    const services = loadCompose().services as Record<string, ComposeService & { profiles?: string[] }>;
    for (const name of ['redis-node-1', 'redis-node-2', 'redis-node-3']) {
      const node = services[name];
      expect(node?.profiles).toEqual(['cluster']);
      const command = node?.command as string[];
      expect(command[command.indexOf('--cluster-enabled') + 1]).toBe('yes');
      expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
      expect(command[command.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
    }
    expect(String(services['redis-cluster-init']?.command)).toMatch(/redis-cli --cluster create/);
    expect(services['redis-cluster-init']?.profiles).toEqual(['cluster']);
  });

  it('has the three role services with their replicas and the API port', () => {
    const services = loadCompose().services;
    expect(services['catalog-warmer']?.deploy?.replicas).toBe(2);
    expect(services['agent-worker']?.deploy?.replicas).toBe(2);
    expect(services.api?.ports).toContain('3000:3000');
    expect(services.api?.environment?.AGENTQ_API_HOST).toBe('0.0.0.0');
    expect(String(services.api?.environment?.AGENTQ_API_PORT)).toBe('3000');
    // Compose refuses to start without a token rather than running an open API.
    expect(String(services.api?.environment?.AGENTQ_API_TOKEN)).toMatch(/^\$\{AGENTQ_API_TOKEN:\?.+\}$/);
  });

  it('checks the readiness of the warmer and the worker on the health port it gives each', () => {
    const services = loadCompose().services;
    for (const [name, variable] of [
      ['catalog-warmer', 'AGENTQ_WARMER_HEALTH_PORT'],
      ['agent-worker', 'AGENTQ_WORKER_HEALTH_PORT'],
    ] as const) {
      const port = String(services[name]?.environment?.[variable]);
      expect(port, name).toMatch(/^\d+$/);
      const test = services[name]?.healthcheck?.test;
      expect(Array.isArray(test) ? test.join(' ') : test, name).toContain(`http://127.0.0.1:${port}/readyz`);
      // The role's other settings still come from the shared environment.
      expect(services[name]?.environment?.AGENTQ_PREFIX, name).toBe('${AGENTQ_PREFIX:-agentq}');
    }
  });

  it('builds every role from the one Dockerfile, on Redis, after Redis is healthy', () => {
    const roles = roleServices();
    expect(roles.map(([name]) => name).sort()).toEqual(['agent-worker', 'api', 'catalog-warmer', 'indexer']);
    for (const [name, service] of roles) {
      const context = typeof service.build === 'string' ? service.build : service.build?.context;
      expect(context, name).toBe('.');
      expect(service.image, name).toBe(roles[0]![1].image);
      // The single Redis unless REDIS_URL names the cluster profile's nodes.
      expect(service.environment?.REDIS_URL, name).toBe('${REDIS_URL:-redis://redis:6379}');
      expect(service.depends_on?.redis?.condition, name).toBe('service_healthy');
    }
  });

  it('names only commands that exist: the CLI entry file and a known role', () => {
    const expected: Record<string, string> = {
      'catalog-warmer': 'warmer',
      'agent-worker': 'worker',
      api: 'api',
      indexer: 'indexer',
    };
    for (const [name, service] of roleServices()) {
      expect(Array.isArray(service.command), name).toBe(true);
      const [runner, loader, entry, role, ...rest] = service.command as string[];
      expect([runner, loader], name).toEqual(['npx', 'tsx']);
      expect(entry, name).toBe(cliEntry);
      expect(existsSync(join(root, entry!)), `${entry} exists`).toBe(true);
      expect(cliRoles, name).toContain(role);
      expect(role, name).toBe(expected[name]);
      expect(rest, name).toEqual([]);
    }
  });

  it('interpolates only variables agentq reads', () => {
    const known = new Set<string>(configVariables.map((variable) => variable.env));
    const interpolated = stringsIn(loadCompose()).flatMap((text) =>
      [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!),
    );
    expect(interpolated.length).toBeGreaterThan(0);
    for (const name of interpolated) expect(known.has(name), name).toBe(true);
    for (const name of Object.keys(loadCompose().services.api?.environment ?? {})) {
      expect(known.has(name), name).toBe(true);
    }
  });
});

describe('agentq CLI', () => {
  it('defines every role the compose file runs', async () => {
    expect(existsSync(join(root, cliEntry)), `${cliEntry} exists`).toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', cliEntry, '--help'], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const commands = new Set(
      stdout
        .slice(stdout.indexOf('Commands:'))
        .split('\n\n')[0]!
        .split('\n')
        // Command lines are indented by two spaces; wrapped descriptions by many more.
        .map((line) => /^ {2}([a-z][a-z-]*)\b/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    const used = roleServices().map(([, service]) => (service.command as string[])[3]!);
    for (const role of [...used, 'dev']) expect(commands, role).toContain(role);
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfileText
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('builds on Node 22', () => {
    const bases = instructions.filter((line) => /^FROM\s/i.test(line));
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^FROM\s+(--platform=\S+\s+)?node:22([.-]\S*)?(\s|$)/i);
  });

  it('installs with npm ci after copying the manifest of every workspace', () => {
    const install = instructions.findIndex((line) => /^RUN\s.*\bnpm ci\b/.test(line));
    expect(install).toBeGreaterThan(0);
    const copiedBefore = instructions.slice(0, install).join('\n');
    expect(copiedBefore).toMatch(/COPY\s+package\.json\s+package-lock\.json/);
    const workspaces = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] })
      .workspaces;
    for (const workspace of workspaces) expect(copiedBefore, workspace).toContain(`COPY ${workspace}/package.json`);
  });
});
