import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AgentqError } from '../errors/agentq-error.js';
import { ValidationError } from '../errors/validation-error.js';

/**
 * Reads a run spec document from a file: JSON when the name ends in `.json`, YAML otherwise (YAML
 * also reads JSON). Returns the parsed document unvalidated: the caller validates it with the run
 * spec schema it enqueues with, so that a file and a REST body are held to the same rules. An
 * unreadable file is `USAGE`; a file that does not parse is `VALIDATION`, naming the file.
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
  const json = extname(path).toLowerCase() === '.json';
  try {
    return json ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (error) {
    throw new ValidationError({
      what: `run spec file ${path}`,
      issues: [{ field: '', message: `not valid ${json ? 'JSON' : 'YAML'} (${(error as Error).message})` }],
    });
  }
}
