/**
 * At most one warning per key (an MCP server) per interval; the ones held back in between are
 * counted and reported with the next one that goes out. For failures that repeat on every request
 * (a refresh is tried before each request while the authorization server fails), so that the log
 * says how often without saying it each time. Keys are server ids: the map is as large as the
 * catalog, at most.
 */
export class WarningThrottle {
  private readonly last = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many warnings of `key` were held back since its last one, or `undefined` to hold this one back. */
  take(key: string): number | undefined {
    const now = this.now();
    const entry = this.last.get(key);
    if (entry && now - entry.at < this.intervalMs) {
      entry.held += 1;
      return undefined;
    }
    this.last.set(key, { at: now, held: 0 });
    return entry?.held ?? 0;
  }
}
