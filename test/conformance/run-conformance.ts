// `npm run test:conformance`: every client scenario of @modelcontextprotocol/conformance, with
// agentq as the client (test/conformance/agentq-client.ts), one scenario at a time (the suite's
// own parallel mode starts every scenario's client at once, too many for a small machine).
//
// test/conformance/expected-failures.json names each scenario agentq does not support, with the
// reason. The run fails when a scenario not listed there fails, and when a listed one passes (the
// list is stale): a baseline of everything is not a pass.
//
// Node 20 has no fs.globSync, which the suite imports; fs-glob-sync.mjs supplies it (see there).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
const suite = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const clientCommand = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(here, 'agentq-client.ts'))}`;
const scenarioTimeoutMs = 120_000;

const expectedFailures = z
  .record(z.string(), z.string().min(10, 'give the reason'))
  .parse(JSON.parse(readFileSync(join(here, 'expected-failures.json'), 'utf8')));

function runSuite(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', join(here, 'fs-glob-sync.mjs'), suite, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const listed = await runSuite(['list', '--client'], 60_000);
const every = [...listed.output.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1] as string);
// `npm run test:conformance -- auth/metadata-var3 auth/scope-step-up`: only those scenarios.
const only = process.argv.slice(2);
const unknown = only.filter((name) => !every.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`the suite has no client scenario ${unknown.join(', ')}\n`);
  process.exit(1);
}
const scenarios = only.length > 0 ? only : every;
if (scenarios.length === 0) {
  process.stderr.write(`no client scenarios listed:\n${listed.output}\n`);
  process.exit(1);
}
for (const name of Object.keys(expectedFailures)) {
  if (!every.includes(name)) {
    process.stderr.write(`expected-failures.json names ${name}, which the suite no longer has\n`);
    process.exit(1);
  }
}

// Scenarios whose check races the machine, not the client, with the race: each gets one more try
// when it fails (a client that is wrong fails both), and the output says so.
//
// sse-retry: the scenario's server answers the pending tool call on any GET stream it receives,
// and times the "reconnection" from the last GET. The client's standalone GET stream (opened after
// `initialize`, before the call) normally arrives long before; on a loaded machine it can land
// inside the ~50 ms before the server closes the call's stream, and is then answered and timed as
// a reconnection that came before the close ("reconnected too early (-51ms ...)").
const raceProne: Record<string, string> = {
  'sse-retry': 'a late standalone GET stream is taken for the reconnection',
};

async function runScenario(scenario: string): Promise<{ passed: boolean; output: string }> {
  const run = await runSuite(
    ['client', '--scenario', scenario, '--timeout', '60000', '--command', clientCommand],
    scenarioTimeoutMs,
  );
  return { passed: run.code === 0 && /OVERALL: PASSED/.test(run.output), output: run.output };
}

const problems: string[] = [];
for (const scenario of scenarios) {
  const expected = expectedFailures[scenario];
  let run = await runScenario(scenario);
  let retried = '';
  if (!run.passed && expected === undefined && raceProne[scenario] !== undefined) {
    const first = run.output.split('\n').filter((line) => /FAILURE/.test(line));
    run = await runScenario(scenario);
    retried = ` on its second try (first: ${first.join(' ').trim() || 'no failing check'}; known race: ${raceProne[scenario]})`;
  }
  const { passed } = run;
  const verdict = passed
    ? expected
      ? 'PASSED, but listed as expected to fail'
      : `passed${retried}`
    : expected
      ? `failed as expected (${expected})`
      : `FAILED${retried}`;
  process.stdout.write(`${scenario}: ${verdict}\n`);
  if (passed === (expected !== undefined)) {
    problems.push(scenario);
    if (!passed) {
      const lines = run.output.split('\n');
      const errors = lines.filter((line) => /FAILURE|ERROR|Error/.test(line)).slice(0, 20);
      // Without a failing check (a timeout, a warning), the end of the output tells what happened.
      process.stdout.write(`${(errors.length > 0 ? errors : lines.slice(-25)).join('\n')}\n`);
    }
  }
}
const expectedHere = scenarios.filter((name) => expectedFailures[name] !== undefined).length;
process.stdout.write(
  `\n${scenarios.length} scenarios, ${expectedHere} expected to fail, ${problems.length} unexpected\n`,
);
process.exit(problems.length === 0 ? 0 : 1);
