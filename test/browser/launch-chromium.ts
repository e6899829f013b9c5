import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The one line that installs the browser on Debian and Ubuntu; the README's Quickstart shows it. */
export const CHROMIUM_INSTALL_COMMAND = 'sudo apt-get install chromium';

/** Names a Chromium binary goes by on Debian (`chromium`) and Ubuntu (`chromium-browser`). */
const CHROMIUM_NAMES = ['chromium', 'chromium-browser'];

/** Thrown when the browser tests cannot find Chromium: they fail with the fix, never skip. */
export class ChromiumMissingError extends Error {
  readonly code = 'CHROMIUM_MISSING';
  override readonly name = 'ChromiumMissingError';
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Chromium the browser tests drive: `AGENTQ_CHROMIUM` when set, else `chromium` or
 * `chromium-browser` on `PATH`. Throws {@link ChromiumMissingError} naming what it looked for and
 * how to install it.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.AGENTQ_CHROMIUM;
  if (explicit !== undefined && explicit !== '') {
    if (isExecutableFile(explicit)) return explicit;
    throw new ChromiumMissingError(
      `AGENTQ_CHROMIUM is ${explicit}, which is not an executable file. Point it at a Chromium binary, ` +
        `or unset it and install chromium: ${CHROMIUM_INSTALL_COMMAND}`,
    );
  }
  const directories = (env.PATH ?? '').split(delimiter).filter((directory) => directory !== '');
  for (const name of CHROMIUM_NAMES) {
    for (const directory of directories) {
      const candidate = join(directory, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  throw new ChromiumMissingError(
    `The browser tests need Chromium: no ${CHROMIUM_NAMES.join(' or ')} on PATH. ` +
      `Install it (Debian/Ubuntu): ${CHROMIUM_INSTALL_COMMAND}, or set AGENTQ_CHROMIUM to a Chromium binary.`,
  );
}

/** Launches headless Chromium with no network of its own beyond the pages a test opens. */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: findChromium(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
