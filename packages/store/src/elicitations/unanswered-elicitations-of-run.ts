import { redisTime } from '../redis/redis-time.js';
import {
  readElicitation,
  runElicitationIndex,
  type ElicitationRecord,
  type ElicitationRecordsOptions,
} from './elicitation-records.js';

/**
 * The questions one run incarnation is waiting on: the elicitations in the run's index
 * (`P:run.<runId>:elicitations`) asked by `incarnation`, not answered and not past their expiry at
 * `now` (by default Redis's clock, the one expiry is judged by), soonest expiry first. An earlier run under the same id, or a question nobody can answer
 * any more, is not something this run waits for.
 */
export async function unansweredElicitationsOfRun(
  options: ElicitationRecordsOptions & { runId: string; incarnation: string; now?: number },
): Promise<ElicitationRecord[]> {
  const now = options.now ?? (await redisTime(options.redis));
  const ids = new Set(Object.values(await runElicitationIndex(options)));
  const records = await Promise.all(
    [...ids].map(async (elicitationId) => await readElicitation({ ...options, elicitationId })),
  );
  return records
    .filter(
      (record): record is ElicitationRecord =>
        record !== null &&
        record.response === null &&
        record.request.runId === options.runId &&
        record.request.incarnation === options.incarnation &&
        record.request.expiresAt > now,
    )
    .sort((a, b) => a.request.expiresAt - b.request.expiresAt);
}
