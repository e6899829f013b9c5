import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Queue } from 'bullmq';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { TEST_TOKEN, startTestApi, type ApiCaller } from './start-test-api.js';

const run = promisify(execFile);
const workDirectory = fileURLToPath(new URL('../artifacts/openapi-client/', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A program written against the generated types: typed calls through openapi-fetch, one call the
 * types must refuse, and a print of what the real API answered.
 */
const clientProgram = `import createClient from 'openapi-fetch';
import type { paths } from './agentq-api.js';

const client = createClient<paths>({
  baseUrl: process.env.AGENTQ_URL,
  headers: { authorization: \`Bearer \${process.env.AGENTQ_TOKEN}\` },
});

const created = await client.POST('/v1/runs', {
  body: { spec: { assistant: { model: 'scripted:demo' }, input: { prompt: 'from a generated client' } } },
});
const runId: string = created.data?.runId ?? 'none';
const fetched = await client.GET('/v1/runs/{runId}', { params: { path: { runId } } });
const state: string | undefined = fetched.data?.state;
const cancelled = await client.DELETE('/v1/runs/{runId}', { params: { path: { runId } } });
const missing = await client.GET('/v1/runs/{runId}', { params: { path: { runId: 'no-such-run' } } });
// @ts-expect-error -- the generated types know the path parameter's name
void client.GET('/v1/runs/{runId}', { params: { path: { run: 'x' } } }).catch(() => undefined);

console.log(
  JSON.stringify({
    created: { status: created.response.status, runId },
    fetched: { status: fetched.response.status, state, runId: fetched.data?.runId },
    cancelled: { status: cancelled.response.status, previousState: cancelled.data?.previousState },
    missing: { status: missing.response.status, code: missing.error?.error.code },
  }),
);
`;

describe('the OpenAPI document', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
    document = (await http.call('GET', '/v1/openapi.json')).body as Record<string, unknown>;
  });

  afterAll(async () => {
    await api.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx.close();
  });

  it('passes a real OpenAPI 3.1 validator, every $ref resolving inside the document', async () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('#/$defs/');
    for (const name of ['RunInfo', 'Schedule', 'ServerInfo', 'CatalogView']) {
      expect(text).toContain(`"#/components/schemas/${name}"`);
    }
    // validate() resolves every reference and checks the document against the 3.1 schema.
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  it('generates a typed client that typechecks and talks to the real API', async () => {
    const types = astToString(await openapiTS(structuredClone(document) as never));
    expect(types).toContain('RunInfo');
    await mkdir(workDirectory, { recursive: true });
    await writeFile(`${workDirectory}agentq-api.ts`, types);
    await writeFile(`${workDirectory}client-program.ts`, clientProgram);
    await writeFile(
      `${workDirectory}tsconfig.json`,
      JSON.stringify({
        extends: '../../../tsconfig.base.json',
        compilerOptions: { noEmit: true, types: ['node'] },
        include: ['agentq-api.ts', 'client-program.ts'],
      }),
    );
    // Typecheck: an error here (or an unused @ts-expect-error) means the types are not usable.
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    await run(process.execPath, [tsc, '-p', `${workDirectory}tsconfig.json`], { cwd: repositoryRoot }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the generated client does not typecheck:\n${error.stdout ?? String(error)}`);
      },
    );
    const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
    const { stdout } = await run(process.execPath, [tsx, `${workDirectory}client-program.ts`], {
      cwd: repositoryRoot,
      env: { ...process.env, AGENTQ_URL: api.url, AGENTQ_TOKEN: TEST_TOKEN },
    });
    const answers = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, Record<string, unknown>>;
    expect(answers.created).toMatchObject({ status: 201 });
    expect(answers.created?.runId).toMatch(/^run-/);
    expect(answers.fetched).toMatchObject({ status: 200, runId: answers.created?.runId, state: 'waiting' });
    expect(answers.cancelled).toMatchObject({ status: 200, previousState: 'waiting' });
    expect(answers.missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  }, 120_000);
});
