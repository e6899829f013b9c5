import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { AgentqError } from '../errors/agentq-error.js';
import { parseJsonOrYaml } from '../json/parse-json-or-yaml.js';

/**
 * Reads a run spec document from a file: JSON when the name ends in `.json`, YAML otherwise (YAML
 * also reads JSON). Returns the parsed document unvalidated: the caller validates it with the run
 * spec schema it enqueues with, so that a file and a REST body are held to the same rules. An
 * unreadable file is `USAGE`; a file that does not parse is `INVALID_JSON` (a `.json` file) or
 * `VALIDATION` (YAML), on one line naming the file.
 */
export async function readRunSpecFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AgentqError({
      code: 'USAGE',
      field: 'spec',
      message: `${path}: cannot read the run spec file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    });
  }
  return parseJsonOrYaml(text, { what: `run spec file ${path}`, json: extname(path).toLowerCase() === '.json' });
}
