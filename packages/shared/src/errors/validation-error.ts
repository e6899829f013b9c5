import type { ZodError, core } from 'zod';
import type { ErrorCode } from './error-codes.js';
import { NonRetryableError } from './non-retryable-error.js';

/** One problem found in an input, with the dotted path of its field. */
export interface ValidationIssue {
  field: string;
  message: string;
}

/**
 * Input that failed its schema. `field` names the first bad field; `issues` lists all of them.
 * Never retried.
 */
export class ValidationError extends NonRetryableError {
  readonly issues: ValidationIssue[];

  constructor(options: { what: string; issues: ValidationIssue[]; code?: ErrorCode }) {
    const list = options.issues.map((issue) => `${issue.field || '(root)'}: ${issue.message}`);
    super({
      code: options.code ?? 'VALIDATION',
      message: `Invalid ${options.what}: ${list.join('; ')}`,
      field: options.issues[0]?.field,
    });
    this.name = 'ValidationError';
    this.issues = options.issues;
  }

  /**
   * Turns a zod error into a `ValidationError` whose message names every bad field, down to the
   * deepest one: a union that no branch matched is reported through its closest branch, and an
   * object with unknown keys through the first of them.
   */
  static fromZod(what: string, error: ZodError, code?: ErrorCode): ValidationError {
    const issues = deepestIssues(error.issues, []).map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    }));
    return new ValidationError({ what, issues, code });
  }
}

/**
 * Replaces each `invalid_union` issue by the issues of the branch that came closest: the one with
 * the fewest issues, then the deepest. A wrong type inside `input` then names `input.prompt`
 * rather than a bare `input: Invalid input`.
 */
function deepestIssues(
  issues: readonly core.$ZodIssue[],
  prefix: readonly PropertyKey[],
): Array<{ path: PropertyKey[]; message: string }> {
  const out: Array<{ path: PropertyKey[]; message: string }> = [];
  for (const issue of issues) {
    // An unknown key is named by its own path, not by the object's that holds it.
    const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = [...prefix, ...issue.path, ...(unknownKey === undefined ? [] : [unknownKey])];
    const branches = issue.code === 'invalid_union' ? issue.errors.filter((branch) => branch.length > 0) : [];
    if (branches.length === 0) {
      out.push({ path, message: issue.message });
      continue;
    }
    const depth = (branch: readonly core.$ZodIssue[]) => Math.max(...branch.map((inner) => inner.path.length));
    const closest = branches.reduce((best, branch) =>
      branch.length < best.length || (branch.length === best.length && depth(branch) > depth(best)) ? branch : best,
    );
    out.push(...deepestIssues(closest, path));
  }
  return out;
}
