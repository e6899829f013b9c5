/** Where the CLI writes and what environment it reads; swapped in tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

/** The process's own terminal and environment. */
export function processIo(): CliIo {
  return {
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    env: process.env,
  };
}
