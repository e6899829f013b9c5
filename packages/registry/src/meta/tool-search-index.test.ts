import { describe, expect, it } from 'vitest';
import type { ToolEntry } from '../registry/tool-entry.js';
import { makeEntry, makeTool } from '../test-support/fixtures.js';
import { createToolSearchIndex, ToolSearchIndex } from './tool-search-index.js';
import { splitWords, stem } from './search-terms.js';

function entry(
  name: string,
  description: string,
  options: { label?: string; namespace?: string; params?: Record<string, unknown>; title?: string } = {},
): ToolEntry {
  const tool = makeTool({
    description,
    schema: { type: 'object', properties: options.params ?? {} },
  });
  if (options.title) (tool as { title?: string }).title = options.title;
  return makeEntry(name, { namespace: options.namespace ?? 'mcp:x', label: options.label, description, tool });
}

const pool = [
  entry('mcp__gitlab__createIssue', 'Create a new issue in a project.', { namespace: 'mcp:gl', label: 'mcp:GitLab' }),
  entry('mcp__github__createIssue', 'Create a new issue in a repository.', {
    namespace: 'mcp:gh',
    label: 'mcp:GitHub',
  }),
  entry('mcp__fs__readTextFile', 'Read the complete contents of a file as text.', {
    namespace: 'mcp:fs',
    params: { path: { type: 'string', description: 'Absolute path of the file' } },
  }),
  entry('mcp__fs__listDirectory', 'Get a detailed listing of all files and directories in a specified path.', {
    namespace: 'mcp:fs',
  }),
  entry('mcp__weather__forecast', 'Hourly forecast for a location.', {
    namespace: 'mcp:wx',
    params: { latitude: { type: 'number' }, longitude: { type: 'number' } },
  }),
  entry('mcp__mail__sendEmail', 'Deliver a message to recipients.', { namespace: 'mcp:mail', title: 'Send email' }),
];

function names(hits: ReturnType<ToolSearchIndex['search']>) {
  return hits.map((hit) => hit.entry.name);
}

describe('search terms', () => {
  it('splits camelCase, snake_case and kebab-case into words', () => {
    expect(splitWords('readTextFile get_file-info HTTPServer2x')).toEqual([
      'read',
      'text',
      'file',
      'get',
      'file',
      'info',
      'http',
      'server',
      '2',
      'x',
    ]);
  });

  it('stems inflections to one form', () => {
    expect(new Set(['create', 'creates', 'created', 'creating'].map(stem)).size).toBe(1);
    expect(stem('directories')).toBe(stem('directory'));
  });
});

describe('ToolSearchIndex', () => {
  it('puts an exact name match first, whichever form the query uses', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('mcp__fs__listDirectory'))[0]).toBe('mcp__fs__listDirectory');
    expect(names(index.search('list_directory'))[0]).toBe('mcp__fs__listDirectory');
    expect(index.search('listDirectory')[0]?.match).toBe('exact-name');
  });

  it('puts a near-exact name match first', () => {
    const index = new ToolSearchIndex(pool);
    const hits = index.search('listDirectry');
    expect(hits[0]?.entry.name).toBe('mcp__fs__listDirectory');
    expect(hits[0]?.match).toBe('near-name');
  });

  it('ranks by description, parameter names and title', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('show me what is inside a folder'))[0]).toBe('mcp__fs__listDirectory');
    expect(names(index.search('latitude longitude'))[0]).toBe('mcp__weather__forecast');
    expect(names(index.search('send an email'))[0]).toBe('mcp__mail__sendEmail');
    expect(names(index.search('reading file contents'))[0]).toBe('mcp__fs__readTextFile');
  });

  it('uses the server label to tell look-alike tools apart', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('open an issue on GitLab'))[0]).toBe('mcp__gitlab__createIssue');
    expect(names(index.search('open an issue on GitHub'))[0]).toBe('mcp__github__createIssue');
  });

  it('ranks a tool matching the whole need above look-alikes sharing one word', () => {
    const index = new ToolSearchIndex([
      entry('mcp__billing__invoices', 'Invoices of the account.', { title: 'Invoices' }),
      entry('mcp__reports__exportData', 'Export invoices and bills to CSV.'),
      entry('mcp__crm__exportUsers', 'Export users to CSV.'),
      entry('mcp__shop__exportOrders', 'Export orders to CSV.'),
      entry('mcp__ops__exportLogs', 'Export logs to CSV.'),
    ]);
    expect(names(index.search('export invoices as csv'))[0]).toBe('mcp__reports__exportData');
  });

  it('filters by namespace or label', () => {
    const index = new ToolSearchIndex(pool);
    expect(names(index.search('create issue', { namespace: 'mcp:GitHub' }))).toEqual(['mcp__github__createIssue']);
    expect(names(index.search('create issue', { namespace: 'mcp:gh' }))).toEqual(['mcp__github__createIssue']);
  });

  it('returns at most k results, 8 by default', () => {
    const many = Array.from({ length: 30 }, (_, index) => entry(`tool_${index}`, `Fetch record number ${index}.`));
    const index = new ToolSearchIndex(many);
    expect(index.search('fetch record')).toHaveLength(8);
    expect(index.search('fetch record', { limit: 3 })).toHaveLength(3);
  });

  it('returns nothing for a query that matches nothing', () => {
    expect(new ToolSearchIndex(pool).search('zzqx')).toEqual([]);
  });

  it('is built once per tool set and reused', () => {
    const first = createToolSearchIndex(pool);
    expect(createToolSearchIndex([...pool].reverse())).toBe(first);
    const changed = [
      ...pool.slice(1),
      entry('mcp__gitlab__createIssue', 'Create a new issue in a project.', {
        namespace: 'mcp:gl',
        label: 'mcp:GitLab Renamed',
      }),
    ];
    expect(createToolSearchIndex(changed)).not.toBe(first);
  });
});
