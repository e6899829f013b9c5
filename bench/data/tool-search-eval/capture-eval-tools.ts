// Captures the tool lists of real MCP servers installed from npm, for the tool-search evaluation
// set. Each server is installed in ./servers (its own npm prefix, outside the root workspace),
// spawned over stdio with the MCP SDK client, and asked for tools/list, following every page.
// The tools are written to tools.json exactly as the servers returned them.
//
//   npx tsx bench/data/tool-search-eval/capture-eval-tools.ts [--no-install] [--only id,id]
//
// Servers get dummy credentials (never real secrets) and temporary directories or files where
// they want a path. A server that fails to start, times out or needs the network at start-up is
// skipped and reported. Two servers whose tool lists are identical (a fork, a renamed copy) are
// kept once, the first in the list below.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
const serversDir = join(here, 'servers');
const outputPath = join(here, 'tools.json');

/** Paths a server may be pointed at; all live under one temporary directory. */
interface CaptureContext {
  /** An empty directory, for servers that want a root, vault or workspace. */
  directory: string;
  /** A path for servers that want a database or state file. */
  file: string;
}

interface ServerSpec {
  /** Short slug used in query ids (`<id>/<toolName>`). */
  id: string;
  package: string;
  /** Name of the `bin` entry to run; defaults to the only or first one. */
  bin?: string;
  args?: (context: CaptureContext) => string[];
  env?: Record<string, string>;
}

// Dummy values for the credential variables servers read at start-up. They are placeholders so
// that a server which insists on a key still starts and lists its tools; no call is ever made.
const dummyEnvironment: Record<string, string> = {
  API_KEY: 'dummy',
  GITHUB_PERSONAL_ACCESS_TOKEN: 'dummy',
  GITHUB_TOKEN: 'dummy',
  GITLAB_PERSONAL_ACCESS_TOKEN: 'dummy',
  GITLAB_API_URL: 'http://127.0.0.1:9/api/v4',
  SLACK_BOT_TOKEN: 'xoxb-dummy',
  SLACK_TEAM_ID: 'T00000000',
  SLACK_MCP_XOXP_TOKEN: 'xoxp-dummy',
  BRAVE_API_KEY: 'dummy',
  GOOGLE_MAPS_API_KEY: 'dummy',
  EVERART_API_KEY: 'dummy',
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  AWS_REGION: 'us-east-1',
  FIRECRAWL_API_KEY: 'fc-dummy',
  TAVILY_API_KEY: 'tvly-dummy',
  EXA_API_KEY: 'dummy',
  NOTION_TOKEN: 'ntn_dummy',
  SUPABASE_ACCESS_TOKEN: 'sbp_dummy',
  SUPABASE_URL: 'http://127.0.0.1:9',
  SUPABASE_KEY: 'dummy',
  SUPABASE_SERVICE_ROLE_KEY: 'dummy',
  SENTRY_ACCESS_TOKEN: 'dummy',
  SENTRY_AUTH_TOKEN: 'dummy',
  CLOUDFLARE_API_TOKEN: 'dummy',
  CLOUDFLARE_ACCOUNT_ID: 'dummy',
  BROWSERBASE_API_KEY: 'dummy',
  BROWSERBASE_PROJECT_ID: 'dummy',
  HEROKU_API_KEY: 'dummy',
  FIGMA_API_KEY: 'dummy',
  PRIVATE_APP_ACCESS_TOKEN: 'dummy',
  MDB_MCP_CONNECTION_STRING: '',
  NEON_API_KEY: 'dummy',
  AIRTABLE_API_KEY: 'dummy',
  MYSQL_HOST: '127.0.0.1',
  MYSQL_PORT: '9',
  MYSQL_USER: 'dummy',
  MYSQL_PASS: 'dummy',
  MYSQL_PASSWORD: 'dummy',
  MYSQL_DB: 'dummy',
  MYSQL_DATABASE: 'dummy',
  CIRCLECI_TOKEN: 'dummy',
  MCP_MODE: 'stdio',
  LAUNCHDARKLY_API_KEY: 'dummy',
  DATADOG_API_KEY: 'dummy',
  DATADOG_APP_KEY: 'dummy',
  DATADOG_SITE: 'datadoghq.com',
  ATLASSIAN_SITE_NAME: 'dummy',
  ATLASSIAN_USER_EMAIL: 'dummy@example.com',
  ATLASSIAN_API_TOKEN: 'dummy',
  ATLASSIAN_BITBUCKET_USERNAME: 'dummy',
  ATLASSIAN_BITBUCKET_APP_PASSWORD: 'dummy',
  BACKLOG_DOMAIN: 'dummy.backlog.com',
  BACKLOG_API_KEY: 'dummy',
  MAPBOX_ACCESS_TOKEN: 'pk.dummy',
  ARGOCD_BASE_URL: 'http://127.0.0.1:9',
  ARGOCD_API_TOKEN: 'dummy',
  ASANA_ACCESS_TOKEN: 'dummy',
  LINEAR_API_KEY: 'lin_api_dummy',
  CODACY_ACCOUNT_TOKEN: 'dummy',
  SEARXNG_URL: 'http://127.0.0.1:9',
  SERPER_API_KEY: 'dummy',
  CONFLUENCE_URL: 'http://127.0.0.1:9',
  CONFLUENCE_USERNAME: 'dummy',
  CONFLUENCE_API_TOKEN: 'dummy',
  JIRA_URL: 'http://127.0.0.1:9',
  JIRA_HOST: 'http://127.0.0.1:9',
  JIRA_BASE_URL: 'http://127.0.0.1:9',
  JIRA_USERNAME: 'dummy',
  JIRA_EMAIL: 'dummy@example.com',
  JIRA_API_TOKEN: 'dummy',
  ENDPOINT: 'http://127.0.0.1:9/graphql',
  PLANE_API_KEY: 'dummy',
  PLANE_WORKSPACE_SLUG: 'dummy',
  VERCEL_API_KEY: 'dummy',
  VERCEL_TOKEN: 'dummy',
  GRAFANA_URL: 'http://127.0.0.1:9',
  GRAFANA_API_KEY: 'dummy',
  HEVY_API_KEY: 'dummy',
  JINA_API_KEY: 'dummy',
  FMP_ACCESS_TOKEN: 'dummy',
  XERO_CLIENT_ID: 'dummy',
  XERO_CLIENT_SECRET: 'dummy',
  COINGECKO_DEMO_API_KEY: 'dummy',
  COINGECKO_ENVIRONMENT: 'demo',
  ROLLBAR_ACCESS_TOKEN: 'dummy',
  RESEND_API_KEY: 're_dummy',
  SONARQUBE_TOKEN: 'dummy',
  SONARQUBE_URL: 'http://127.0.0.1:9',
  METABASE_URL: 'http://127.0.0.1:9',
  METABASE_API_KEY: 'dummy',
  DISCORD_TOKEN: 'dummy',
  HYPERBROWSER_API_KEY: 'dummy',
  DOKPLOY_URL: 'http://127.0.0.1:9/api',
  DOKPLOY_API_KEY: 'dummy',
  SHOPIFY_ACCESS_TOKEN: 'dummy',
  MYSHOPIFY_DOMAIN: 'dummy.myshopify.com',
  DOPPLER_TOKEN: 'dummy',
  KARAKEEP_API_ADDR: 'http://127.0.0.1:9',
  KARAKEEP_API_KEY: 'dummy',
  WHOP_API_KEY: 'dummy',
  Z_AI_API_KEY: 'dummy',
  GLEAN_INSTANCE: 'dummy',
  GLEAN_API_TOKEN: 'dummy',
  N8N_API_URL: 'http://127.0.0.1:9/api/v1',
  N8N_API_KEY: 'dummy',
  OBSIDIAN_API_KEY: 'dummy',
  OBSIDIAN_BASE_URL: 'http://127.0.0.1:9',
  TWILIO_ACCOUNT_SID: 'ACdummy',
  TWILIO_API_KEY: 'SKdummy',
  TWILIO_API_SECRET: 'dummy',
  STRIPE_SECRET_KEY: 'sk_test_dummy',
  NODE_ENV: 'production',
  // Keep libraries that honour proxy variables away from the network.
  HTTP_PROXY: 'http://127.0.0.1:9',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost',
  DO_NOT_TRACK: '1',
};

const dir = (context: CaptureContext) => [context.directory];

// The order matters only for de-duplication: the first of two identical tool lists is kept.
const servers: ServerSpec[] = [
  { id: 'everything', package: '@modelcontextprotocol/server-everything', args: () => ['stdio'] },
  { id: 'memory', package: '@modelcontextprotocol/server-memory', env: {} },
  { id: 'filesystem', package: '@modelcontextprotocol/server-filesystem', args: dir },
  { id: 'github', package: '@modelcontextprotocol/server-github' },
  { id: 'gitlab', package: '@modelcontextprotocol/server-gitlab' },
  { id: 'slack', package: '@modelcontextprotocol/server-slack' },
  { id: 'postgres', package: '@modelcontextprotocol/server-postgres', args: () => ['postgresql://127.0.0.1:9/none'] },
  { id: 'puppeteer', package: '@modelcontextprotocol/server-puppeteer' },
  { id: 'brave-search', package: '@modelcontextprotocol/server-brave-search' },
  { id: 'google-maps', package: '@modelcontextprotocol/server-google-maps' },
  { id: 'sequential-thinking', package: '@modelcontextprotocol/server-sequential-thinking' },
  { id: 'redis', package: '@modelcontextprotocol/server-redis', args: () => ['redis://127.0.0.1:6379'] },
  { id: 'gdrive', package: '@modelcontextprotocol/server-gdrive' },
  { id: 'aws-kb', package: '@modelcontextprotocol/server-aws-kb-retrieval' },
  { id: 'everart', package: '@modelcontextprotocol/server-everart' },
  { id: 'pdf', package: '@modelcontextprotocol/server-pdf', args: () => ['--stdio'] },
  { id: 'system-monitor', package: '@modelcontextprotocol/server-system-monitor', args: () => ['--stdio'] },
  { id: 'wiki-explorer', package: '@modelcontextprotocol/server-wiki-explorer', args: () => ['--stdio'] },
  { id: 'playwright', package: '@playwright/mcp', args: () => ['--headless', '--isolated'] },
  { id: 'notion', package: '@notionhq/notion-mcp-server' },
  { id: 'context7', package: '@upstash/context7-mcp' },
  { id: 'firecrawl', package: 'firecrawl-mcp' },
  { id: 'tavily', package: 'tavily-mcp' },
  { id: 'exa', package: 'exa-mcp-server' },
  { id: 'supabase', package: '@supabase/mcp-server-supabase', args: () => ['--access-token=sbp_dummy'] },
  { id: 'stripe', package: '@stripe/mcp', args: () => ['--tools=all', '--api-key=sk_test_dummy'] },
  { id: 'sentry', package: '@sentry/mcp-server', args: () => ['--access-token=dummy'] },
  { id: 'kubernetes', package: 'mcp-server-kubernetes' },
  { id: 'cloudflare', package: '@cloudflare/mcp-server-cloudflare', args: () => ['run', 'dummy-account'] },
  { id: 'browserbase', package: '@browserbasehq/mcp-server-browserbase' },
  { id: 'heroku', package: '@heroku/mcp-server' },
  { id: 'shopify-dev', package: '@shopify/dev-mcp' },
  { id: 'figma', package: 'figma-developer-mcp', args: () => ['--stdio', '--figma-api-key=dummy'] },
  { id: 'hubspot', package: '@hubspot/mcp-server' },
  { id: 'twilio', package: '@twilio-alpha/mcp', args: () => ['ACdummy/SKdummy:dummy'] },
  { id: 'mongodb', package: 'mongodb-mcp-server' },
  { id: 'neon', package: '@neondatabase/mcp-server-neon', args: () => ['start', 'dummy'] },
  { id: 'airtable', package: 'airtable-mcp-server' },
  { id: 'mysql', package: '@benborla29/mcp-server-mysql' },
  { id: 'playwright-ea', package: '@executeautomation/playwright-mcp-server' },
  { id: 'desktop-commander', package: '@wonderwhy-er/desktop-commander' },
  { id: 'azure-devops', package: '@azure-devops/mcp', args: () => ['dummy-org'] },
  { id: 'circleci', package: '@circleci/mcp-server-circleci' },
  { id: 'n8n-mcp', package: 'n8n-mcp' },
  { id: 'launchdarkly', package: '@launchdarkly/mcp-server', args: () => ['start', '--api-key', 'dummy'] },
  { id: 'datadog', package: '@winor30/mcp-server-datadog' },
  { id: 'google-calendar', package: '@cocal/google-calendar-mcp' },
  { id: 'drawio', package: '@drawio/mcp' },
  { id: 'cloud-run', package: '@google-cloud/cloud-run-mcp' },
  { id: 'brave', package: '@brave/brave-search-mcp-server', args: () => ['--transport', 'stdio'] },
  { id: 'jira-aashari', package: '@aashari/mcp-server-atlassian-jira' },
  { id: 'bitbucket', package: '@aashari/mcp-server-atlassian-bitbucket' },
  { id: 'browsermcp', package: '@browsermcp/mcp' },
  { id: 'backlog', package: 'backlog-mcp-server' },
  { id: 'mapbox', package: '@mapbox/mcp-server' },
  { id: 'argocd', package: 'argocd-mcp', args: () => ['stdio'] },
  { id: 'mermaid', package: 'mcp-mermaid' },
  { id: 'airbnb', package: '@openbnb/mcp-server-airbnb' },
  { id: 'gcloud', package: '@google-cloud/gcloud-mcp' },
  { id: 'asana', package: '@roychri/mcp-server-asana' },
  { id: 'mui', package: '@mui/mcp' },
  { id: 'linear', package: 'linear-mcp' },
  { id: 'codacy', package: '@codacy/codacy-mcp' },
  { id: 'pdf-reader', package: '@sylphx/pdf-reader-mcp' },
  { id: 'searxng', package: 'mcp-searxng' },
  { id: 'supabase-crud', package: 'supabase-mcp' },
  { id: 'atlassian', package: 'mcp-atlassian' },
  { id: 'serper', package: 'serper-search-scrape-mcp-server' },
  { id: 'gdrive-sheets', package: '@isaacphi/mcp-gdrive' },
  { id: 'shadcn', package: '@jpisnice/shadcn-ui-mcp-server' },
  { id: 'apple-docs', package: '@kimsungwhee/apple-docs-mcp' },
  { id: 'graphql', package: 'mcp-graphql' },
  { id: 'search-console', package: 'mcp-server-gsc' },
  { id: 'plane', package: '@makeplane/plane-mcp-server' },
  { id: 'jira-nexus', package: '@nexus2520/jira-mcp-server' },
  { id: 'vercel', package: 'vercel-mcp' },
  { id: 'obsidian-vault', package: 'mcp-obsidian', args: dir },
  { id: 'mongo', package: 'mcp-mongo-server', args: () => ['mongodb://127.0.0.1:9/none'] },
  { id: 'grafana', package: '@leval/mcp-grafana' },
  { id: 'fetch-kazuph', package: '@kazuph/mcp-fetch' },
  { id: 'fetch', package: 'mcp-fetch-server' },
  { id: 'hugeicons', package: '@hugeicons/mcp-server' },
  { id: 'hevy', package: 'hevy-mcp' },
  { id: 'selenium', package: '@angiejones/mcp-selenium' },
  { id: 'slack-zencoder', package: '@zencoderai/slack-mcp-server' },
  { id: 'jina', package: 'jina-mcp-tools' },
  { id: 'xero', package: '@xeroapi/xero-mcp-server' },
  { id: 'postgres-server', package: 'mcp-postgres-server' },
  { id: 'jira-cloud', package: '@aaronsb/jira-cloud-mcp' },
  { id: 'rollbar', package: '@rollbar/mcp-server' },
  { id: 'resend', package: 'resend-mcp' },
  { id: 'ccxt', package: '@mcpfun/mcp-server-ccxt' },
  { id: 'sonarqube', package: 'sonarqube-mcp-server' },
  { id: 'metabase', package: '@easecloudio/mcp-metabase-server' },
  { id: 'commands', package: 'mcp-server-commands' },
  { id: 'gsheets', package: 'mcp-gsheets' },
  { id: 'lucide', package: 'lucide-icons-mcp' },
  { id: 'discourse', package: '@discourse/mcp' },
  { id: 'duckduckgo', package: 'duckduckgo-mcp-server' },
  { id: 'n8n', package: '@leonardsellem/n8n-mcp-server' },
  { id: 'discord', package: 'mcp-discord' },
  { id: 'mysql-f4ww4z', package: '@f4ww4z/mcp-mysql-server' },
  { id: 'gmail', package: '@shinzolabs/gmail-mcp' },
  { id: 'hyperbrowser', package: 'hyperbrowser-mcp' },
  { id: 'jira-cloud-mcp', package: 'mcp-jira-cloud' },
  { id: 'ripgrep', package: 'mcp-ripgrep' },
  { id: 'firebase', package: '@gannonh/firebase-mcp' },
  { id: 'dokploy', package: '@ahdev/dokploy-mcp' },
  { id: 'shopify', package: 'shopify-mcp', args: () => ['--accessToken', 'dummy', '--domain', 'dummy.myshopify.com'] },
  { id: 'echarts', package: 'mcp-echarts' },
  { id: 'doppler', package: '@dopplerhq/mcp-server' },
  { id: 'karakeep', package: '@karakeep/mcp' },
  { id: 'docker', package: 'mcp-server-docker' },
  { id: 'code-runner', package: 'mcp-server-code-runner' },
  { id: 'deepwiki', package: 'mcp-deepwiki' },
  { id: 'google-docs', package: '@a-bonus/google-docs-mcp' },
  { id: 'google-workspace', package: '@dguido/google-workspace-mcp' },
  { id: 'glean', package: '@gleanwork/local-mcp-server' },
  { id: 'sequential-tools', package: 'mcp-sequentialthinking-tools' },
  { id: 'workos-docs', package: '@workos/mcp-docs-server' },
  { id: 'ssh', package: 'ssh-mcp', args: () => ['--host=127.0.0.1', '--port=9', '--user=dummy', '--password=dummy'] },
  { id: 'knip', package: '@knip/mcp' },
  { id: 'ark-ui', package: '@ark-ui/mcp' },
  { id: 'primevue', package: '@primevue/mcp' },
  { id: 'pandacss', package: '@pandacss/mcp' },
  { id: 'z-ai', package: '@z_ai/mcp-server' },
];

const packageJsonSchema = z.object({
  version: z.string(),
  bin: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
});

// The result schema only checks the envelope; each tool is kept exactly as it arrived.
const listToolsResultSchema = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string() })),
  nextCursor: z.string().optional(),
});

type RawTool = z.infer<typeof listToolsResultSchema>['tools'][number];

interface CapturedServer {
  id: string;
  package: string;
  version: string;
  tools: RawTool[];
}

async function resolveLaunch(spec: ServerSpec) {
  const packageDirectory = join(serversDir, 'node_modules', ...spec.package.split('/'));
  const manifest = packageJsonSchema.parse(JSON.parse(await readFile(join(packageDirectory, 'package.json'), 'utf8')));
  const bins = typeof manifest.bin === 'string' ? { main: manifest.bin } : (manifest.bin ?? {});
  const binPath = spec.bin ? bins[spec.bin] : Object.values(bins)[0];
  if (!binPath) throw new Error(`no bin entry in ${spec.package}`);
  return { version: manifest.version, script: join(packageDirectory, binPath) };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function captureServer(spec: ServerSpec, context: CaptureContext, timeoutMs: number): Promise<CapturedServer> {
  const { version, script } = await resolveLaunch(spec);
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...(spec.args?.(context) ?? [])],
    env: { ...inherited, ...dummyEnvironment, ...spec.env },
    cwd: context.directory,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'agentq-eval-capture', version: '0.1.0' });
  try {
    await withTimeout(client.connect(transport), timeoutMs, 'initialize');
    const tools: RawTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await withTimeout(
        client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, listToolsResultSchema),
        timeoutMs,
        'tools/list',
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { id: spec.id, package: spec.package, version, tools };
  } finally {
    const pid = transport.pid;
    await client.close().catch(() => undefined);
    // close() ends the child; make sure a server that ignores stdin closing goes too.
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function digestTools(tools: RawTool[]): string {
  const sorted = [...tools].sort((left, right) => left.name.localeCompare(right.name));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

async function mapLimit<T, R>(items: T[], limit: number, worker: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await worker(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}

const argv = process.argv.slice(2);
const only = argv.includes('--only') ? new Set((argv[argv.indexOf('--only') + 1] ?? '').split(',')) : undefined;

if (!argv.includes('--no-install') || !existsSync(join(serversDir, 'node_modules'))) {
  // --ignore-scripts: no server may download a browser or a binary while installing. `npm install`
  // rather than `npm ci`: it follows the lockfile too, and npm ci refuses this tree over an optional
  // platform package that the lockfile records without a version.
  const install = spawnSync(
    'npm',
    ['install', '--prefix', serversDir, '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund'],
    { stdio: 'inherit' },
  );
  if (install.status !== 0) throw new Error(`npm install in ${serversDir} failed`);
}

const root = await mkdtemp(join(tmpdir(), 'agentq-eval-capture-'));
const selected = servers.filter((spec) => !only || only.has(spec.id));
const outcomes = await mapLimit(selected, 4, async (spec) => {
  const directory = join(root, spec.id);
  await mkdir(directory, { recursive: true });
  try {
    const captured = await captureServer(spec, { directory, file: join(directory, 'state.db') }, 45_000);
    return { spec, captured };
  } catch (error) {
    return { spec, error: error instanceof Error ? error.message : String(error) };
  }
});
await rm(root, { recursive: true, force: true });

const kept: CapturedServer[] = [];
const seen = new Map<string, string>();
const report: string[] = [];
for (const outcome of outcomes) {
  if (!outcome.captured) {
    report.push(`skip ${outcome.spec.id}: ${outcome.error}`);
    continue;
  }
  const { captured } = outcome;
  if (captured.tools.length === 0) {
    report.push(`skip ${captured.id}: no tools`);
    continue;
  }
  const digest = digestTools(captured.tools);
  const twin = seen.get(digest);
  if (twin) {
    report.push(`skip ${captured.id}: same tools as ${twin}`);
    continue;
  }
  seen.set(digest, captured.id);
  kept.push(captured);
  report.push(`ok   ${captured.id}: ${captured.tools.length} tools`);
}

if (only && existsSync(outputPath)) {
  // A partial run refreshes the named servers and keeps the others.
  const previous = z
    .object({ servers: z.array(z.looseObject({ id: z.string() })) })
    .parse(JSON.parse(await readFile(outputPath, 'utf8')));
  const refreshed = new Map(kept.map((server) => [server.id, server]));
  const merged = servers.flatMap((spec) => {
    const fresh = refreshed.get(spec.id);
    if (fresh) return [fresh];
    const old = previous.servers.find((server) => server.id === spec.id);
    return old ? [old as unknown as CapturedServer] : [];
  });
  kept.splice(0, kept.length, ...merged);
}

const toolCount = kept.reduce((sum, server) => sum + server.tools.length, 0);
await writeFile(outputPath, `${JSON.stringify({ capturedAt: new Date().toISOString(), servers: kept }, null, 2)}\n`);
console.log(report.join('\n'));
console.log(`wrote ${outputPath}: ${kept.length} servers, ${toolCount} tools`);
