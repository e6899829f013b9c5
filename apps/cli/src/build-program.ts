import { AgentqError } from '@agentq/shared';
import { Command, CommanderError, Option } from 'commander';
import type { CliIo } from './cli-io.js';
import { EXIT_CODES } from './exit-codes.js';
import { parseIntegerOption } from './options/parse-integer-option.js';

/** The version `agentq --version` prints. */
export const CLI_VERSION = '0.1.0';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

const environmentHelp = `
Configuration comes from the environment (the same for every command):
  REDIS_URL        Redis to use (default redis://127.0.0.1:6379)
  AGENTQ_API_URL   API base URL for run page links and OAuth callbacks (default http://127.0.0.1:<AGENTQ_API_PORT>)
  AGENTQ_PREFIX    key prefix of the deployment (default agentq)
  AGENTQ_MODEL     model of \`agentq run\` when --model is not given
  LOG_LEVEL        log level of the long-running roles
See docs/configuration.md for the full table.

Exit codes: 0 ok, 1 failed, 2 usage or invalid input, 3 not found,
4 conflict (e.g. already decided), 5 Redis unreachable, 6 timed out.`;

/**
 * Gives a command group (`approvals`, `servers`) an action of its own, so that an unknown
 * subcommand is reported as unknown (a default subcommand would take it as an excess argument),
 * and no subcommand at all runs `whenBare`.
 */
function refuseUnknownSubcommands(options: {
  group: Command;
  io: CliIo;
  done: (code: number) => void;
  whenBare: (options: Record<string, unknown>) => Promise<void>;
}): void {
  const { group, io, done } = options;
  group
    // Options after a subcommand belong to it (`servers list --json`), not to the group.
    .enablePositionalOptions()
    .usage('[options] [command]')
    .argument('[command]')
    .action(async (command: string | undefined, flags: Record<string, unknown>) => {
      if (command === undefined) return options.whenBare(flags);
      const known = group.commands.map((sub) => sub.name()).join(', ');
      io.err(`error: unknown command '${command}' for 'agentq ${group.name()}' (known: ${known})`);
      io.err(`(run agentq ${group.name()} --help for usage)`);
      done(EXIT_CODES.usage);
    })
    // The group's options (`approvals --run <id> list`) are the named subcommand's when it has
    // them (its own value wins), and refused when it has not: never silently dropped.
    .hook('preAction', (_group, subcommand) => {
      if (subcommand === group) return;
      for (const option of group.options) {
        const key = option.attributeName();
        const value = group.getOptionValue(key);
        if (value === undefined) continue;
        if (!subcommand.options.some((own) => own.attributeName() === key)) {
          throw new AgentqError({
            code: 'USAGE',
            field: key,
            message: `${option.long} is not an option of \`agentq ${group.name()} ${subcommand.name()}\``,
          });
        }
        if (subcommand.getOptionValue(key) === undefined) subcommand.setOptionValue(key, value);
      }
    });
}

/**
 * A `preAction` hook refusing `option` given on the command line without `needed` (`--timeout`
 * without `--wait` would otherwise be silently ignored).
 */
function onlyWith(option: string, needed: string): (command: Command) => void {
  return (command) => {
    if (command.getOptionValueSource(option) !== 'cli' || command.getOptionValue(needed)) return;
    const flag = (name: string) => command.options.find((own) => own.attributeName() === name)?.long ?? name;
    throw new AgentqError({
      code: 'USAGE',
      field: option,
      message: `${flag(option)} only applies with ${flag(needed)}`,
    });
  };
}

/**
 * The `agentq` command tree. Commands load their modules when they run, so `--help` and the small
 * commands do not pay for loading the worker, the warmer and the API. Each action reports its exit code through `setExitCode`; errors are
 * thrown and turned into one line and an exit code by `runCli`.
 */
export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command();
  const done = (code: number) => setExitCode(code);
  program
    .name('agentq')
    .description('Headless LLM agent runs on BullMQ, with a warm MCP tool catalog and durable approvals.')
    .version(CLI_VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
    })
    .showHelpAfterError('(run with --help for usage)')
    // Options after a subcommand belong to it: `servers list --json` is list's `--json`, not the group's.
    .enablePositionalOptions()
    .addHelpText('after', environmentHelp)
    .usage('[options] <command>')
    .argument('[command]')
    .action((command: string | undefined) => {
      if (command !== undefined) {
        io.err(`error: unknown command '${command}' (run agentq --help for the list)`);
      } else {
        program.outputHelp();
      }
      done(EXIT_CODES.usage);
    });

  program
    .command('dev')
    .description('Run warmer, worker, indexer and API in one process on a local Redis (what `npm start` runs)')
    .option(
      '--port <port>',
      'API port (default AGENTQ_API_PORT or 3000; 0 picks a free one)',
      parseIntegerOption({ min: 0, max: 65_535 }),
    )
    .option('--no-import', 'do not import the servers file (AGENTQ_SERVERS_FILE) at start')
    .option(
      '--demo [name]',
      'enqueue a demo run once everything is up: the approval demo, or `kb` for the knowledge base demo',
    )
    .option('--no-sample-kb', 'do not queue the docs folder as the sample knowledge base agentq-docs')
    .option('--sandbox <dir>', 'folder the filesystem MCP server may use, created at start', 'sandbox')
    .option('--redis <url>', 'Redis to use (default REDIS_URL, else 127.0.0.1:6379, else a private one)')
    .option('--private-redis', 'start a throwaway redis-server (no persistence, stopped on exit) even if one answers')
    .option('--rotate-token', 'replace the API token kept in .agentq/dev-token with a new one')
    .action(
      async (options: {
        port?: number;
        import: boolean;
        demo?: boolean | string;
        sampleKb: boolean;
        sandbox: string;
        redis?: string;
        privateRedis?: boolean;
        rotateToken?: boolean;
      }) =>
        done(
          await (
            await import('./commands/dev-command.js')
          ).devCommand(io, {
            port: options.port === undefined ? undefined : String(options.port),
            import: options.import,
            demo: options.demo ?? false,
            sampleKb: options.sampleKb,
            sandbox: options.sandbox,
            redis: options.redis,
            privateRedis: options.privateRedis ?? false,
            rotateToken: options.rotateToken ?? false,
          }),
        ),
    );

  for (const [role, description] of [
    ['warmer', 'Run one catalog warmer (consumes catalog-refresh, keeps the tool catalog warm)'],
    ['worker', 'Run one agent worker (consumes agent-runs, approvals and decisions)'],
    ['api', 'Run the HTTP API, Bull Board, approvals inbox and /metrics (needs AGENTQ_API_TOKEN)'],
    ['indexer', 'Run one indexer (consumes kb-ingest, writes knowledge base versions)'],
  ] as const) {
    program
      .command(role)
      .description(description)
      .action(async () => done(await (await import('./commands/role-command.js')).roleCommand(io, role)));
  }

  program
    .command('run')
    .description('Enqueue a run; with --wait, show its progress and print the result')
    .argument('[prompt]', 'what to ask the model')
    .option('-m, --model <provider:model>', 'model, e.g. openai:gpt-4o-mini (default AGENTQ_MODEL or scripted:demo)')
    .option('-s, --server <id>', 'MCP server the run may use (repeatable)', collect)
    .option('--demo', 'enqueue the demo run (server-everything, pauses for one approval)')
    .option('--spec <file>', 'enqueue the run spec in this JSON or YAML file as it is (no prompt or spec options)')
    .option('-w, --wait', 'follow the run until it finishes and print the result')
    .option(
      '--timeout <ms>',
      'with --wait: give up waiting after this many milliseconds',
      parseIntegerOption({ min: 1, unit: 'milliseconds' }),
      600_000,
    )
    .option('--run-id <id>', 'run id (idempotency key); default a fresh one')
    .option('--system <text>', 'system prompt')
    .option('--max-steps <n>', 'maximum model steps (1-200)', parseIntegerOption({ min: 1, max: 200, unit: 'steps' }))
    .option('--json', 'print machine-readable JSON')
    .hook('preAction', onlyWith('timeout', 'wait'))
    .action(async (prompt: string | undefined, options) =>
      done(await (await import('./commands/run-command.js')).runCommand(io, prompt, options)),
    );

  program
    .command('status')
    .description('Show the state, progress, pending approvals and result of a run')
    .argument('<runId>')
    .option('--json', 'print machine-readable JSON')
    .action(async (runId: string, options: { json?: boolean }) =>
      done(await (await import('./commands/run-command.js')).statusCommand(io, runId, options)),
    );

  const approvals = program
    .command('approvals')
    .description('List and decide pending tool approvals (no subcommand: list)')
    .option('--run <runId>', 'list: only this run')
    .option('--json', 'list: print machine-readable JSON');
  refuseUnknownSubcommands({
    group: approvals,
    io,
    done,
    whenBare: async (options) =>
      done(await (await import('./commands/approvals-command.js')).listApprovalsCommand(io, options)),
  });
  approvals
    .command('list')
    .description('List pending approvals (the default)')
    .option('--run <runId>', 'only this run')
    .option('--json', 'print machine-readable JSON')
    .action(async (options: { run?: string; json?: boolean }) =>
      done(await (await import('./commands/approvals-command.js')).listApprovalsCommand(io, options)),
    );
  for (const [verb, approved] of [
    ['approve', true],
    ['deny', false],
  ] as const) {
    approvals
      .command(verb)
      .description(`${approved ? 'Approve' : 'Deny'} a pending tool call; the run resumes`)
      .argument('<approvalId>')
      .option('-r, --reason <text>', 'reason, recorded and shown to the model')
      .action(async (approvalId: string, options: { reason?: string }) =>
        done(
          await (
            await import('./commands/approvals-command.js')
          ).decideCommand(io, approvalId, { approved, reason: options.reason }),
        ),
      );
  }
  approvals
    .command('show')
    .description('Show one approval: its tool, its full arguments, and its decision (who, when, which path)')
    .argument('<approvalId>')
    .option('--json', 'print machine-readable JSON')
    .action(async (approvalId: string, options: { json?: boolean }) =>
      done(await (await import('./commands/approvals-command.js')).showApprovalCommand(io, approvalId, options)),
    );

  const elicitations = program
    .command('elicitations')
    .description('List and answer the questions MCP servers (policy ask) put to a person (no subcommand: list)')
    .option('--run <runId>', 'list: only this run')
    .option('--json', 'list: print machine-readable JSON');
  refuseUnknownSubcommands({
    group: elicitations,
    io,
    done,
    whenBare: async (options) =>
      done(await (await import('./commands/elicitations-command.js')).listElicitationsCommand(io, options)),
  });
  elicitations
    .command('list')
    .description('List unanswered elicitations (the default)')
    .option('--run <runId>', 'only this run')
    .option('--json', 'print machine-readable JSON')
    .action(async (options: { run?: string; json?: boolean }) =>
      done(await (await import('./commands/elicitations-command.js')).listElicitationsCommand(io, options)),
    );
  elicitations
    .command('show')
    .description('Show the question and the form its server asked for, or the answer')
    .argument('<elicitationId>')
    .option('--json', 'print machine-readable JSON')
    .action(async (elicitationId: string, options: { json?: boolean }) =>
      done(
        await (await import('./commands/elicitations-command.js')).showElicitationCommand(io, elicitationId, options),
      ),
    );
  elicitations
    .command('answer')
    .description('Answer once: --accept with --set field=value, --decline or --cancel; the run resumes')
    .argument('<elicitationId>')
    .option('--accept', 'accept, with the fields given by --set')
    .option('--decline', 'decline')
    .option('--cancel', 'cancel')
    .option('--set <field=value>', 'a form field (repeatable)', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .action(
      async (
        elicitationId: string,
        options: { accept?: boolean; decline?: boolean; cancel?: boolean; set?: string[] },
      ) =>
        done(
          await (
            await import('./commands/elicitations-command.js')
          ).answerElicitationCommand(io, elicitationId, options),
        ),
    );

  const servers = program
    .command('servers')
    .description('Manage MCP server definitions (no subcommand: list)')
    .option('--json', 'list: print machine-readable JSON');
  refuseUnknownSubcommands({
    group: servers,
    io,
    done,
    whenBare: async (options) =>
      done(await (await import('./commands/servers-command.js')).listServersCommand(io, options)),
  });
  servers
    .command('list')
    .description('List servers with their catalog state (the default)')
    .option('--json', 'print machine-readable JSON')
    .action(async (options: { json?: boolean }) =>
      done(await (await import('./commands/servers-command.js')).listServersCommand(io, options)),
    );
  servers
    .command('add')
    .description('Add or replace a server: --command for stdio, --url for Streamable HTTP (or --sse)')
    .argument('<serverId>', 'slug: lowercase letters, digits, "-" or "_"')
    .option('--command <command>', 'stdio: the executable')
    .option('--arg <value>', 'stdio: one argument (repeatable; use --arg=-x for dashes)', collect)
    .option('--env <NAME=value>', 'stdio: environment (repeatable; secrets as ${AGENTQ_SECRET_NAME})', collect)
    .option('--url <url>', 'HTTP: the server URL')
    .option('--sse', 'HTTP: legacy SSE transport')
    .option('--header <Name=value>', 'HTTP: header (repeatable; secrets as ${AGENTQ_SECRET_NAME})', collect)
    .option('--name <name>', 'display name')
    .option('--always-ask <tool>', 'tool that always needs approval (repeatable; * for all)', collect)
    .addOption(new Option('--disabled', 'add it disabled (not with --wait: it is never listed)').conflicts('wait'))
    .option('-w, --wait', 'return once the server is listed or has failed, printing its state (exit 0 when connected)')
    .option('--json', 'print the saved definition (with --wait, also the settled state and status) as JSON')
    .option(
      '--timeout <ms>',
      'with --wait: give up waiting after this many milliseconds (exit 6)',
      parseIntegerOption({ min: 1, unit: 'milliseconds' }),
      120_000,
    )
    .hook('preAction', onlyWith('timeout', 'wait'))
    .action(async (serverId: string, options) =>
      done(await (await import('./commands/servers-command.js')).addServerCommand(io, serverId, options)),
    );
  servers
    .command('import')
    .description('Import a YAML or JSON servers file (all or nothing)')
    .argument('<file>')
    .action(async (file: string) =>
      done(await (await import('./commands/servers-command.js')).importServersCommand(io, file)),
    );
  servers
    .command('authorize')
    .description(
      'Connect an OAuth (authorization_code) server: print the URL to open, wait for the browser on a loopback listener, store the tokens',
    )
    .argument('<serverId>')
    .option(
      '--port <port>',
      'port of the loopback listener (default: any free port)',
      parseIntegerOption({ min: 0, max: 65_535 }),
    )
    .action(async (serverId: string, options: { port?: number }) =>
      done(await (await import('./commands/server-oauth-command.js')).authorizeServerCommand(io, serverId, options)),
    );
  servers
    .command('deauthorize')
    .description("Delete an OAuth server's stored tokens and registered client")
    .argument('<serverId>')
    .action(async (serverId: string) =>
      done(await (await import('./commands/server-oauth-command.js')).deauthorizeServerCommand(io, serverId)),
    );
  for (const [action, description] of [
    ['enable', 'Enable a server (warmers list its tools)'],
    ['disable', 'Disable a server (runs stop using it)'],
    ['refresh', 'Re-read the tool list now'],
    ['restart', 'Open a new session to the server everywhere (watcher and workers), then re-read its tools'],
    ['remove', 'Remove a server definition'],
  ] as const) {
    servers
      .command(action)
      .description(description)
      .argument('<serverId>')
      .action(async (serverId: string) =>
        done(await (await import('./commands/servers-command.js')).serverActionCommand(io, action, serverId)),
      );
  }

  program
    .command('catalog')
    .description('Show the cached tools, state and age of a server (never contacts it)')
    .argument('<serverId>')
    .addOption(
      new Option(
        '--version <version>',
        'show the tool definitions of this catalog version instead (a version `agentq status` lists per step)',
      ),
    )
    .addOption(new Option('--json', 'print machine-readable JSON'))
    .action(async (serverId: string, options: { json?: boolean; version?: string }) =>
      done(await (await import('./commands/catalog-command.js')).catalogCommand(io, serverId, options)),
    );

  const kb = program.command('kb').description('Manage knowledge bases (ingested by `agentq indexer`)');
  kb.command('create')
    .description('Create a knowledge base')
    .argument('<name>', 'lowercase letters, digits, "-" or "_"')
    .option('-d, --description <text>', 'what it holds (shown to models by kb_list)')
    .action(async (name: string, options: { description?: string }) =>
      done(await (await import('./commands/kb-command.js')).createKbCommand(io, name, options)),
    );
  kb.command('add')
    .description('Queue files, folders (every .md, .txt, .html, .pdf below) or URLs for ingestion')
    .argument('<kb>')
    .argument('<source...>', 'file, folder, or http(s) URL')
    .option('-w, --wait', 'wait until the indexer has ingested them, and print the outcome')
    .option('--timeout <ms>', 'with --wait: give up waiting after this long', '600000')
    .option('--json', 'print machine-readable JSON')
    .hook('preAction', onlyWith('timeout', 'wait'))
    .action(async (name: string, sources: string[], options) =>
      done(await (await import('./commands/kb-command.js')).addKbSourceCommand(io, name, sources, options)),
    );
  kb.command('list', { isDefault: true })
    .description('List knowledge bases, or the documents of one (the default)')
    .argument('[kb]')
    .option('--json', 'print machine-readable JSON')
    .action(async (name: string | undefined, options: { json?: boolean }) =>
      done(await (await import('./commands/kb-command.js')).listKbsCommand(io, name, options)),
    );
  kb.command('remove')
    .description('Remove a knowledge base, or one document of it')
    .argument('<kb>')
    .option('--document <id>', 'remove only this document (as a new version)')
    .action(async (name: string, options: { document?: string }) =>
      done(await (await import('./commands/kb-command.js')).removeKbCommand(io, name, options)),
    );
  kb.command('search')
    .description('Search knowledge bases the way kb_search does (Redis only)')
    .argument('<kb>', 'knowledge base, or several separated by commas')
    .argument('<query...>')
    .option('-n, --limit <n>', 'most results (1-50)', '5')
    .option('--json', 'print machine-readable JSON')
    .action(async (name: string, query: string[], options: { limit?: string; json?: boolean }) =>
      done(await (await import('./commands/kb-command.js')).searchKbCommand(io, name, query, options)),
    );

  return program;
}

/** Whether a commander error only means help or the version was printed. */
export function isHelpExit(error: unknown): boolean {
  return (
    error instanceof CommanderError &&
    (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
  );
}
