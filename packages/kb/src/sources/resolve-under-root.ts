import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { NonRetryableError } from '@agentq/shared';

function forbidden(message: string): NonRetryableError {
  return new NonRetryableError({ code: 'FORBIDDEN', field: 'source.path', message });
}

// One answer for every path outside the root, existing or not, without the path itself or where
// its links lead: anything that varied with the file system outside the root would tell a caller
// what is there.
function outside(): NonRetryableError {
  return forbidden('the path is outside AGENTQ_KB_FILE_ROOT');
}

function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return !(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}

/**
 * Whether a path that does not resolve leads outside `realRoot`: decided by the nearest ancestor
 * that resolves (its real path, links followed), so a missing file behind a link that points out
 * of the root is outside, like an existing one. An ancestor that exists but does not resolve (a
 * dangling link) counts as outside: where it points is not the caller's to learn.
 */
async function leadsOutside(path: string, realRoot: string): Promise<boolean> {
  for (let candidate = path; ; candidate = dirname(candidate)) {
    try {
      return !isInside(realRoot, await realpath(candidate));
    } catch {
      const exists = await lstat(candidate).then(
        () => true,
        () => false,
      );
      if (exists) return true;
    }
    if (dirname(candidate) === candidate) return true;
  }
}

/**
 * Resolves a file path from an API caller (links followed) and returns it when it lies in or under
 * `root` (`AGENTQ_KB_FILE_ROOT`). A path outside, a link inside the root that points outside, and a
 * missing file behind such a link all get the same `FORBIDDEN` answer, whether or not the file
 * exists and without echoing the path or a link's target, so the answer is no oracle for the
 * server's files. Only a path that stays inside the root and does not exist is `NOT_FOUND`.
 */
export async function resolveUnderRoot(path: string, root: string | undefined): Promise<string> {
  if (root === undefined) {
    throw forbidden('file sources through the API need AGENTQ_KB_FILE_ROOT; add files with the CLI, or use a URL');
  }
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw forbidden('AGENTQ_KB_FILE_ROOT does not exist');
  }
  // First by the text alone, before the file system is asked anything: the root as configured or
  // as resolved (it may itself be a link).
  const lexical = resolve(path);
  if (!isInside(resolve(root), lexical) && !isInside(realRoot, lexical)) throw outside();
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    if (await leadsOutside(path, realRoot)) throw outside();
    throw new NonRetryableError({
      code: 'NOT_FOUND',
      field: 'source.path',
      message: `${path}: no such file or folder`,
    });
  }
  if (!isInside(realRoot, real)) throw outside();
  return real;
}
