import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';

let loading: Promise<QuickJSWASMModule> | undefined;

/**
 * The QuickJS WebAssembly module, compiled and instantiated once per process and shared by every
 * script: a script gets its own runtime and context (its own heap and limits) from it, which costs
 * far less than a module. The synchronous build is used on purpose: host calls are promises that
 * the host settles between pumps of the script's job queue, so no WebAssembly stack is ever
 * suspended, and scripts of several runs can interleave on the one module (the asyncify build
 * allows one suspended call per module).
 */
export function loadQuickJs(): Promise<QuickJSWASMModule> {
  loading ??= newQuickJSWASMModuleFromVariant(import('@jitl/quickjs-wasmfile-release-sync')).catch((error: unknown) => {
    // A failed load is not cached: the next script tries again.
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Forgets the loaded module, so that the next script loads a new one. For a module that aborted
 * (an assertion inside QuickJS): it refuses every later call.
 */
export function forgetQuickJs(): void {
  loading = undefined;
}
