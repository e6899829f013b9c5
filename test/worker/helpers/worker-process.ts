// A worker process for crash tests: what `apps/agent-worker/src/main.ts` does, plus lock and
// stall tuning from argv (tuning is deliberately not part of the deployment config). Prints
// `WORKER READY` once it consumes jobs. Crash hooks come from `AGENTQ_TEST_CRASH_AT`.
import { startAgentWorker, type AgentWorkerTuning } from '@agentq/agent-worker';
import { createLogger, loadConfig } from '@agentq/shared';

const tuning = JSON.parse(process.argv[2] ?? '{}') as AgentWorkerTuning;
const config = loadConfig(process.env);
const logger = createLogger({ level: config.logLevel, name: 'test-worker' });
const worker = await startAgentWorker({ config, logger, tuning });
process.stdout.write('WORKER READY\n');
const stop = () => {
  worker.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
