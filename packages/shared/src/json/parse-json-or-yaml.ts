import { parse as parseYaml } from 'yaml';
import type { ErrorCode } from '../errors/error-codes.js';
import { ValidationError } from '../errors/validation-error.js';

/**
 * Parses the text of a JSON or YAML file (YAML also reads JSON). Text that does not parse is a
 * one-line `ValidationError` naming `what`, with the line and column of the problem (the YAML
 * parser's code frame is left out): code `INVALID_JSON` for JSON and `VALIDATION` for YAML, unless
 * the file's own kind has a code for both (`IMPORT_INVALID` for a servers file).
 */
export function parseJsonOrYaml(text: string, options: { what: string; json: boolean; code?: ErrorCode }): unknown {
  try {
    return options.json ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.replace(/:\s*$/, '') ?? '';
    throw new ValidationError({
      what: options.what,
      code: options.code ?? (options.json ? 'INVALID_JSON' : 'VALIDATION'),
      issues: [{ field: '', message: `not valid ${options.json ? 'JSON' : 'YAML'} (${reason})` }],
    });
  }
}
