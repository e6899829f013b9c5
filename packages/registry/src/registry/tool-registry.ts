import { parseToolId, silentLogger, type Logger } from '@agentq/shared';
import { searchKeyOf, ToolSearchIndex, type ToolSearchIndexOptions } from '../meta/tool-search-index.js';
import { labelOf, type ToolApplyScope, type ToolEntry } from './tool-entry.js';

/** Options of {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Receives the warning when an entry's `applies` throws. @default a silent logger */
  logger?: Logger;
  /**
   * Whether the registry keeps a search index over its entries, updated on every register and
   * deregister. A short-lived view of another registry turns it off and searches its parent's.
   * @default true
   */
  indexed?: boolean;
  /** Options of the search index (synonym expansion). @default none */
  search?: ToolSearchIndexOptions;
}

/** Filter of {@link ToolRegistry.getAll}. */
export interface ToolRegistryFilter {
  /** Matches the raw namespace or the label, exactly. */
  namespace?: string;
  /** Case-insensitive substring of the name, the blurb or the label. */
  query?: string;
}

function byName(a: ToolEntry, b: ToolEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** One registered entry and its place in the registry's order by name. */
interface Slot {
  entry: ToolEntry;
  /** Index in the order by name; `-1` once the entry was replaced or removed. */
  rank: number;
}

/**
 * The group of an MCP tool id in the registry's index: its server part, as `parseToolId` cuts it
 * (at the first `:`), or `''` for an id that does not parse. A function of the id alone, so looking
 * an id up in its group finds exactly what one map of every id would.
 */
function groupOf(toolId: string): string {
  return parseToolId(toolId)?.serverId ?? '';
}

function slotByName(a: Slot, b: Slot): number {
  return byName(a.entry, b.entry);
}

/**
 * The tools a process knows, keyed by wire name. Every listing is sorted by name, so that the
 * tool part of a prompt stays byte-stable between requests and provider prompt caches keep hitting.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Slot>();
  /**
   * The MCP entries by tool id, grouped by the server part of the id (`groupOf`), and the names of
   * every other entry: a run selects its MCP tools by id, so selection costs the run's tools, not
   * the registry's, and each lookup goes to its server's small map, not to one of every tool.
   */
  private readonly mcpSlots = new Map<string, Map<string, Slot[]>>();
  private readonly otherNames = new Set<string>();
  /**
   * Every live slot sorted by name, each knowing its index (`rank`): a run's selection sorts its
   * ranks (numbers) instead of comparing names. Kept up to date lazily, by merging in what was
   * registered since (`added`), so a sync that changes one server costs one linear pass.
   */
  private order: Slot[] = [];
  private added: Slot[] = [];
  private removedSince = false;
  private readonly logger: Logger;
  /**
   * The one search index of this registry, kept in step with it entry by entry, so a sync that
   * re-registers one server's tools updates only their documents and no run ever builds an index.
   * Absent when the registry was created with `indexed: false`.
   */
  readonly searchIndex: ToolSearchIndex | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    this.logger = (options.logger ?? silentLogger()).child({ component: 'tool-registry' });
    this.searchIndex = options.indexed === false ? undefined : new ToolSearchIndex([], options.search);
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Adds an entry, or replaces the one with the same name (last write wins). */
  register(entry: ToolEntry): void {
    const previous = this.entries.get(entry.name);
    if (previous && searchKeyOf(previous.entry) !== searchKeyOf(entry)) {
      this.searchIndex?.remove(searchKeyOf(previous.entry));
    }
    if (previous) this.unindex(previous);
    const slot: Slot = { entry, rank: -1 };
    this.entries.set(entry.name, slot);
    this.index(slot);
    this.added.push(slot);
    // A registry that is written to but never listed must not keep every slot it ever held.
    if (this.added.length > 64 + this.entries.size) this.ordered();
    this.searchIndex?.upsert(entry);
  }

  private index(slot: Slot): void {
    const { entry } = slot;
    if (!entry.mcp) {
      this.otherNames.add(entry.name);
      return;
    }
    const { toolId } = entry.mcp;
    const group = groupOf(toolId);
    let byId = this.mcpSlots.get(group);
    if (!byId) this.mcpSlots.set(group, (byId = new Map()));
    const slots = byId.get(toolId);
    if (slots) slots.push(slot);
    else byId.set(toolId, [slot]);
  }

  private unindex(slot: Slot): void {
    const { entry } = slot;
    slot.rank = -1;
    this.removedSince = true;
    if (!entry.mcp) {
      this.otherNames.delete(entry.name);
      return;
    }
    const { toolId } = entry.mcp;
    const group = groupOf(toolId);
    const byId = this.mcpSlots.get(group);
    const slots = byId?.get(toolId);
    if (!byId || !slots) return;
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    if (slots.length === 0) byId.delete(toolId);
    if (byId.size === 0) this.mcpSlots.delete(group);
  }

  /** Removes an entry by name. Returns whether it existed. */
  deregister(name: string): boolean {
    const previous = this.entries.get(name);
    if (!previous) return false;
    this.entries.delete(name);
    this.unindex(previous);
    // Another name may hold the same tool id by now (a rename): keep that one's document.
    const key = searchKeyOf(previous.entry);
    if (this.searchIndex?.get(key) === previous.entry) this.searchIndex.remove(key);
    return true;
  }

  getByName(name: string): ToolEntry | undefined {
    return this.entries.get(name)?.entry;
  }

  /**
   * Every live slot sorted by name, with `rank` set to its index: the last order with what was
   * removed since dropped and what was added since merged in.
   */
  private ordered(): Slot[] {
    if (this.added.length === 0 && !this.removedSince) return this.order;
    const kept = this.removedSince ? this.order.filter((slot) => slot.rank >= 0) : this.order;
    // A slot added and then replaced or removed before this merge is already dead.
    const added = this.added.filter((slot) => this.entries.get(slot.entry.name) === slot).sort(slotByName);
    const merged = new Array<Slot>(kept.length + added.length);
    let k = 0;
    let a = 0;
    for (let at = 0; at < merged.length; at += 1) {
      const next =
        a >= added.length || (k < kept.length && slotByName(kept[k] as Slot, added[a] as Slot) < 0)
          ? (kept[k++] as Slot)
          : (added[a++] as Slot);
      next.rank = at;
      merged[at] = next;
    }
    this.order = merged;
    this.added = [];
    this.removedSince = false;
    return merged;
  }

  /** Entries sorted by name, optionally filtered. */
  getAll(filter: ToolRegistryFilter = {}): ToolEntry[] {
    const query = filter.query?.toLowerCase();
    const out: ToolEntry[] = [];
    for (const { entry } of this.ordered()) {
      const label = labelOf(entry);
      if (filter.namespace !== undefined && entry.namespace !== filter.namespace && label !== filter.namespace) {
        continue;
      }
      if (
        query !== undefined &&
        query !== '' &&
        !entry.name.toLowerCase().includes(query) &&
        !entry.description.toLowerCase().includes(query) &&
        !label.toLowerCase().includes(query)
      ) {
        continue;
      }
      out.push(entry);
    }
    return out;
  }

  /**
   * Entries that apply to this request, sorted by name. An entry whose `applies` throws is left
   * out with a warning: failing closed keeps a broken predicate from leaking a tool into a run.
   *
   * MCP entries are looked up by the scope's tool ids (an MCP entry only ever applies to a scope
   * that selects its tool id, see `ToolEntry.mcp`), so this costs the run's tools plus the few
   * entries of other kinds, not every tool of the registry; and they are put in order by their
   * rank in the registry's order by name, a sort of numbers, not of names.
   */
  selectActive(scope: ToolApplyScope): ToolEntry[] {
    const order = this.ordered();
    const ranks: number[] = [];
    for (const name of this.otherNames) this.selectIfApplies(this.entries.get(name), scope, ranks);
    // A run's ids come grouped by server: while an id starts with the last group's `<server>:`,
    // it is in that group (see `groupOf`), and no id is parsed or looked up in a map of every tool.
    let prefix: string | undefined;
    let byId: Map<string, Slot[]> | undefined;
    for (const toolId of scope.mcpToolIds) {
      if (prefix === undefined || toolId.length <= prefix.length || !toolId.startsWith(prefix)) {
        const group = groupOf(toolId);
        prefix = group === '' ? undefined : `${group}:`;
        byId = this.mcpSlots.get(group);
      }
      const slots = byId?.get(toolId);
      if (slots) for (const slot of slots) this.selectIfApplies(slot, scope, ranks);
    }
    // Ranks are distinct integers below the registry's size: a typed array sorts them natively.
    const sorted = Float64Array.from(ranks).sort();
    const out = new Array<ToolEntry>(sorted.length);
    for (let at = 0; at < sorted.length; at += 1) out[at] = (order[sorted[at] as number] as Slot).entry;
    return out;
  }

  private selectIfApplies(slot: Slot | undefined, scope: ToolApplyScope, ranks: number[]): void {
    if (!slot) return;
    const { entry } = slot;
    if (!entry.applies) {
      ranks.push(slot.rank);
      return;
    }
    try {
      if (entry.applies(scope)) ranks.push(slot.rank);
    } catch (error) {
      this.logger.warn(
        {
          tool: entry.name,
          namespace: entry.namespace,
          error: error instanceof Error ? error.message : String(error),
        },
        'tool applies() threw; treating the tool as inactive',
      );
    }
  }
}

/** The process-wide registry used in production. Tests build their own `new ToolRegistry()`. */
export const registry = new ToolRegistry();
