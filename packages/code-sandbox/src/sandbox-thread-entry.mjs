// The sandbox thread's entry: the package runs from its TypeScript source, so the thread loads
// that source through tsx, as the process itself does.
import { tsImport } from 'tsx/esm/api';

await tsImport('./sandbox-thread.ts', import.meta.url);
