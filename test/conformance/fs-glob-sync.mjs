// Registered with `node --import` before @modelcontextprotocol/conformance runs: Node 20 has no
// fs.globSync, which the suite imports by name (it uses it once, for `**/checks.json` in its tier
// report). A resolve hook hands the suite's own `fs` imports a module that is `node:fs` plus a
// globSync limited to that one form; every other module keeps the real `node:fs`. On a Node that
// has fs.globSync, nothing is registered.
import fs from 'node:fs';
import { register } from 'node:module';
import { URL } from 'node:url';

if (typeof fs.globSync !== 'function') {
  register(new URL('./fs-glob-sync-hooks.mjs', import.meta.url));
}
