import { pino, type DestinationStream } from 'pino';
import type { Logger } from './logger.js';
import { maskSecretValues, SECRET_MASK } from '../servers/mask-secret-values.js';
import { revealHiddenCharacters } from '../text/reveal-hidden-characters.js';

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** @default 'info' */
  level?: string;
  /** Bound to every line, for example the role name. */
  name?: string;
  /** Secret values (API keys, resolved `${ENV}` values) to mask wherever they appear. */
  secretValues?: readonly string[];
  /** Where lines go. @default stdout */
  destination?: DestinationStream;
}

const secretKey = /(authorization|token|secret|key|password|cookie)/i;
const MASK = SECRET_MASK;

/** Masks values under secret-looking keys and every known secret value, at any depth. */
function scrub(value: unknown, secrets: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // Own fields such as `code`, `field` and `retryAfterMs` say what went wrong; keep them, scrubbed.
    const fields = scrub({ ...value }, secrets, depth + 1) as Record<string, unknown>;
    return {
      ...fields,
      type: value.name,
      message: scrubText(value.message, secrets),
      stack: scrubText(value.stack ?? '', secrets),
      cause: value.cause === undefined ? undefined : scrub(value.cause, secrets, depth + 1),
    };
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] =
      secretKey.test(key) &&
      member !== undefined &&
      member !== null &&
      typeof member !== 'boolean' &&
      typeof member !== 'number'
        ? MASK
        : scrub(member, secrets, depth + 1);
  }
  return out;
}

function scrubText(text: string, secrets: ReadonlySet<string>): string {
  return maskSecretValues(maskUrlCredentials(text), secrets);
}

/**
 * Masks the password of every `scheme://user:password@host` in `text`, up to the authority's last
 * `@` (where URL parsers split it, so a password holding `@` is masked whole). One pass over the
 * text: it runs on every logged string, model-chosen ones included, so no pattern with a quadratic
 * worst case may do this.
 */
export function maskUrlCredentials(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('://'); at !== -1;) {
    let end = at + 3;
    let colon = -1;
    let lastAt = -1;
    for (; end < text.length; end += 1) {
      const code = text.charCodeAt(end);
      // The authority ends at a path or a blank. Not at `?` or `#`: a password may hold them, and
      // masking a query that looks like credentials costs less than showing a password.
      if (code === 0x2f || code <= 0x20) break;
      if (code === 0x40) lastAt = end;
      else if (code === 0x3a && colon === -1) colon = end;
    }
    if (colon !== -1 && lastAt > colon + 1 && isSchemeCharacter(text.charCodeAt(at - 1))) {
      out += `${text.slice(copied, colon + 1)}${MASK}`;
      copied = lastAt;
    }
    // The next `://` may begin on the authority's last character (its `:`).
    at = text.indexOf('://', Math.max(end - 1, at + 3));
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isSchemeCharacter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2d ||
    code === 0x2e
  );
}

/** A live set of secret values; add to it when a process resolves new ones. */
export interface SecretRegistry {
  add(values: Iterable<string>): void;
}

/**
 * Creates the pino root logger of a process. It masks authorization headers, any key containing
 * `token`, `secret`, `key`, `password` or `cookie`, credentials in URLs, and every registered
 * secret value, in both context objects and message text.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger & { secrets: SecretRegistry } {
  const secrets = new Set<string>((options.secretValues ?? []).filter((value) => value.length >= 4));
  const root = pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      // `formatters.log` runs before serializers and already turns errors into scrubbed plain
      // objects; pino's own `err` serializer would relabel those as type "Object".
      serializers: { err: (value: unknown) => value },
      formatters: {
        log: (object) => scrub(object, secrets, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubText(arg, secrets) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
        // Each finished JSON line: pino escapes C0 controls, but a model's or an MCP server's C1
        // controls, bidi overrides and invisible characters would reach the operator's terminal as
        // they are. Written as JSON escapes, the line stays JSON of the same value.
        streamWrite: revealHiddenCharacters,
      },
    },
    options.destination,
  );
  // pino never runs child bindings through `formatters`, and components bind URLs and ids there,
  // so scrub them on the way in. Children inherit this `child` from the root.
  const pinoChild = root.child;
  root.child = function child(this: typeof root, bindings, childOptions) {
    return pinoChild.call(this, scrub(bindings, secrets, 0) as typeof bindings, childOptions);
  } as typeof root.child;
  const logger = root as unknown as Logger & { secrets: SecretRegistry };
  logger.secrets = {
    add(values) {
      for (const value of values) if (value.length >= 4) secrets.add(value);
    },
  };
  return logger;
}

/** A logger that drops everything, for tests and libraries used without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' }) as unknown as Logger;
}
