/**
 * Packs a publishable workspace package (`@agentq/shared`, `@agentq/store`, `@agentq/kb`, `@agentq/client`) into an
 * npm tarball that a service outside this repository can install.
 *
 *   npx tsx scripts/pack-package.ts packages/client [packages/shared …] [--out <dir>]
 *
 * Inside the workspace a package's `exports` point at its TypeScript sources, so that every app,
 * test and `tsx` process runs the code as it is, with no build step. A tarball must point at built
 * JavaScript and declarations instead. npm (unlike pnpm and Yarn) does not apply
 * `publishConfig.exports` when it packs, so this script does it: it builds the package with
 * `tsc -b` (its project references build the workspace packages it depends on first), copies
 * `dist/`, `README.md` and `LICENSE` into a staging folder, writes a `package.json` there with the
 * `publishConfig` fields applied and `scripts`, `devDependencies` and `private` removed, and runs
 * `npm pack` in that folder. The workspace's own files are never rewritten, so a build can run while
 * other processes use the packages.
 *
 * A plain `npm pack` or `npm publish` inside a package folder would ship the source-pointing
 * manifest; the packages' `prepack` script runs this file with `--refuse` to stop that.
 *
 * Prints one line per tarball, its absolute path. Exits 1 on any failure.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Fields of `publishConfig` that replace the top-level ones in the packed manifest. */
const MANIFEST_FIELDS = ['exports', 'types', 'main', 'module', 'bin'] as const;

/** Files and folders, besides `dist/`, that go into a tarball when the package has them (`scripts/`: the store's Lua). */
const EXTRA_FILES = ['README.md', 'LICENSE', 'scripts'];

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  publishConfig?: Record<string, unknown>;
  [field: string]: unknown;
}

function readManifest(packageDir: string): Manifest {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
}

/** The manifest that goes into the tarball: publishConfig applied, workspace-only fields gone. */
export function publishedManifest(manifest: Manifest): Manifest {
  const { private: _private, scripts: _scripts, devDependencies: _dev, publishConfig = {}, ...rest } = manifest;
  const published: Manifest = { ...rest };
  const remainingConfig: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(publishConfig)) {
    if ((MANIFEST_FIELDS as readonly string[]).includes(field)) published[field] = value;
    else remainingConfig[field] = value;
  }
  if (Object.keys(remainingConfig).length > 0) published.publishConfig = remainingConfig;
  return published;
}

/** Builds, stages and packs one package; returns the tarball's absolute path. */
function packOne(packageDir: string, outDir: string): string {
  const manifest = readManifest(packageDir);
  if (manifest.publishConfig?.exports === undefined) {
    throw new Error(`${manifest.name} has no publishConfig.exports: it is not a publishable package`);
  }
  // A clean build each time: a stale dist or build-info file must never reach a tarball.
  rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', join(packageDir, 'tsconfig.build.json')], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const stage = mkdtempSync(join(tmpdir(), `agentq-pack-${basename(packageDir)}-`));
  try {
    cpSync(join(packageDir, 'dist'), join(stage, 'dist'), {
      recursive: true,
      filter: (source) => !basename(source).endsWith('.tsbuildinfo'),
    });
    for (const file of EXTRA_FILES) {
      const source = existsSync(join(packageDir, file)) ? join(packageDir, file) : undefined;
      if (source !== undefined) cpSync(source, join(stage, file), { recursive: true });
    }
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [packed] = JSON.parse(output) as Array<{ filename: string }>;
    if (packed === undefined) throw new Error(`npm pack printed no tarball for ${manifest.name}`);
    return join(outDir, packed.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function main(argv: string[]): void {
  if (argv.includes('--refuse')) {
    process.stderr.write(
      'This package points its exports at TypeScript sources inside the workspace. ' +
        'Pack it with `npx tsx scripts/pack-package.ts <package folder>` from the repository root.\n',
    );
    process.exit(1);
  }
  let outDir = resolve('.');
  const packages: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--out') {
      outDir = resolve(argv[index + 1] ?? '.');
      index += 1;
    } else {
      packages.push(arg);
    }
  }
  if (packages.length === 0) {
    process.stderr.write('usage: pack-package.ts <package folder>... [--out <dir>]\n');
    process.exit(1);
  }
  mkdirSync(outDir, { recursive: true });
  for (const packageDir of packages) {
    process.stdout.write(`${packOne(resolve(repoRoot, packageDir), outDir)}\n`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
