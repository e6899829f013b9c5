import { silentLogger, type Logger } from '@agentq/shared';
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

/**
 * The tools a process knows, keyed by wire name. Every listing is sorted by name, so that the
 * tool part of a prompt stays byte-stable between requests and provider prompt caches keep hitting.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, ToolEntry>();
  /**
   * Names of the MCP entries by tool id, and names of every other entry: a run selects its MCP
   * tools by id, so selection costs the run's tools, not the registry's.
   */
  private readonly mcpNames = new Map<string, Set<string>>();
  private readonly otherNames = new Set<string>();
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
    if (previous && searchKeyOf(previous) !== searchKeyOf(entry)) this.searchIndex?.remove(searchKeyOf(previous));
    if (previous) this.unindex(previous);
    this.entries.set(entry.name, entry);
    this.index(entry);
    this.searchIndex?.upsert(entry);
  }

  private index(entry: ToolEntry): void {
    if (!entry.mcp) {
      this.otherNames.add(entry.name);
      return;
    }
    const names = this.mcpNames.get(entry.mcp.toolId);
    if (names) names.add(entry.name);
    else this.mcpNames.set(entry.mcp.toolId, new Set([entry.name]));
  }

  private unindex(entry: ToolEntry): void {
    if (!entry.mcp) {
      this.otherNames.delete(entry.name);
      return;
    }
    const names = this.mcpNames.get(entry.mcp.toolId);
    names?.delete(entry.name);
    if (names?.size === 0) this.mcpNames.delete(entry.mcp.toolId);
  }

  /** Removes an entry by name. Returns whether it existed. */
  deregister(name: string): boolean {
    const previous = this.entries.get(name);
    if (!previous) return false;
    this.entries.delete(name);
    this.unindex(previous);
    // Another name may hold the same tool id by now (a rename): keep that one's document.
    const key = searchKeyOf(previous);
    if (this.searchIndex?.get(key) === previous) this.searchIndex.remove(key);
    return true;
  }

  getByName(name: string): ToolEntry | undefined {
    return this.entries.get(name);
  }

  /** Entries sorted by name, optionally filtered. */
  getAll(filter: ToolRegistryFilter = {}): ToolEntry[] {
    const query = filter.query?.toLowerCase();
    const out: ToolEntry[] = [];
    for (const entry of this.entries.values()) {
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
    return out.sort(byName);
  }

  /**
   * Entries that apply to this request, sorted by name. An entry whose `applies` throws is left
   * out with a warning: failing closed keeps a broken predicate from leaking a tool into a run.
   *
   * MCP entries are looked up by the scope's tool ids (an MCP entry only ever applies to a scope
   * that selects its tool id, see `ToolEntry.mcp`), so this costs the run's tools plus the few
   * entries of other kinds, not every tool of the registry.
   */
  selectActive(scope: ToolApplyScope): ToolEntry[] {
    const out: ToolEntry[] = [];
    for (const name of this.otherNames) this.selectIfApplies(this.entries.get(name), scope, out);
    for (const toolId of scope.mcpToolIds) {
      const names = this.mcpNames.get(toolId);
      if (names) for (const name of names) this.selectIfApplies(this.entries.get(name), scope, out);
    }
    return out.sort(byName);
  }

  private selectIfApplies(entry: ToolEntry | undefined, scope: ToolApplyScope, out: ToolEntry[]): void {
    if (!entry) return;
    if (!entry.applies) {
      out.push(entry);
      return;
    }
    try {
      if (entry.applies(scope)) out.push(entry);
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
