import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { AgentqError, type KbSource } from '@agentq/shared';
import { kindOfFile, SUPPORTED_EXTENSIONS } from './read-source.js';

/** Options of {@link expandFileSource}. */
export interface ExpandFileSourceOptions {
  path: string;
  /** Most files a folder may expand to. @default 10000 */
  maxFiles?: number;
}

/**
 * Turns a local path into file sources: a file gives itself, a folder every supported file below
 * it (hidden entries and `node_modules` skipped), sorted, each labelled with its path relative to
 * the folder. Runs on the producer's machine; the indexer reads the same absolute paths.
 */
export async function expandFileSource(
  options: ExpandFileSourceOptions,
): Promise<Array<Extract<KbSource, { type: 'file' }>>> {
  const root = resolve(options.path);
  const maxFiles = options.maxFiles ?? 10_000;
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'path', message: `${options.path}: no such file or folder` });
  }
  if (info.isFile()) {
    if (!kindOfFile(root)) {
      throw new AgentqError({
        code: 'VALIDATION',
        field: 'path',
        message: `${options.path}: unsupported file type (use ${SUPPORTED_EXTENSIONS.join(', ')})`,
      });
    }
    return [{ type: 'file', path: root, label: basename(root) }];
  }
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && kindOfFile(path)) {
        found.push(path);
        if (found.length > maxFiles) {
          throw new AgentqError({
            code: 'VALIDATION',
            field: 'path',
            message: `${options.path} holds more than ${maxFiles} files`,
          });
        }
      }
    }
  };
  await walk(root);
  if (found.length === 0) {
    throw new AgentqError({
      code: 'VALIDATION',
      field: 'path',
      message: `${options.path} holds no supported files (${SUPPORTED_EXTENSIONS.join(', ')})`,
    });
  }
  return found.sort().map((path) => ({ type: 'file', path, label: relative(root, path) }));
}
