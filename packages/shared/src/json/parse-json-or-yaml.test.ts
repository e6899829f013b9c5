import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { parseJsonOrYaml } from './parse-json-or-yaml.js';

const failure = (text: string, options: Parameters<typeof parseJsonOrYaml>[1]) => {
  try {
    parseJsonOrYaml(text, options);
  } catch (error) {
    return error as ValidationError;
  }
  throw new Error('parsed');
};

describe('parseJsonOrYaml', () => {
  it('reads JSON and YAML', () => {
    expect(parseJsonOrYaml('{"a":1}', { what: 'x', json: true })).toEqual({ a: 1 });
    expect(parseJsonOrYaml('a: 1\n', { what: 'x', json: false })).toEqual({ a: 1 });
  });

  it('calls broken JSON INVALID_JSON, and broken YAML a one-line VALIDATION with its line and column', () => {
    const json = failure('{"a":', { what: 'run spec file s.json', json: true });
    expect(json).toBeInstanceOf(ValidationError);
    expect(json.code).toBe('INVALID_JSON');
    expect(json.message).toMatch(/^Invalid run spec file s\.json: \(root\): not valid JSON \(.+\)$/);
    const yaml = failure('a: b: c\n', { what: 'run spec file s.yaml', json: false });
    expect(yaml.code).toBe('VALIDATION');
    expect(yaml.message).not.toContain('\n');
    expect(yaml.message).toMatch(/not valid YAML \(.*at line 1, column \d+\)$/);
    expect(failure('a: b: c\n', { what: 'servers file', json: false, code: 'IMPORT_INVALID' }).code).toBe(
      'IMPORT_INVALID',
    );
  });
});
