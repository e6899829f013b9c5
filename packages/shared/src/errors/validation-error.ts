import type { ZodError } from 'zod';
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

  constructor(options: { what: string; issues: ValidationIssue[]; code?: string }) {
    const list = options.issues.map((issue) => `${issue.field || '(root)'}: ${issue.message}`);
    super({
      code: options.code ?? 'VALIDATION',
      message: `Invalid ${options.what}: ${list.join('; ')}`,
      field: options.issues[0]?.field,
    });
    this.name = 'ValidationError';
    this.issues = options.issues;
  }

  /** Turns a zod error into a `ValidationError` whose message names every bad field. */
  static fromZod(what: string, error: ZodError, code?: string): ValidationError {
    const issues = error.issues.map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    }));
    return new ValidationError({ what, issues, code });
  }
}
