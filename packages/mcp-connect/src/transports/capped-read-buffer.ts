import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { MessageByteLimit } from '../connect/cap-message-bytes.js';

const LF = 0x0a;

/**
 * The stdio transport's line buffer with each line (one JSON-RPC message) limited to
 * `limit.maxBytes`: the bytes since the last line end are counted as chunks arrive, and the chunk
 * that runs past the cap throws `limit.tooLarge()` before it is buffered. From then on every byte is
 * dropped unread, so the rest of an endless line costs nothing while the process is being stopped.
 */
export class CappedReadBuffer extends ReadBuffer {
  private lineBytes = 0;
  private overflowed = false;

  constructor(private readonly limit: MessageByteLimit) {
    // The cap is counted per line here; the inherited cap on the whole buffer only backs it up.
    super({ maxBufferSize: limit.maxBytes + 65_536 });
  }

  override append(chunk: Buffer): void {
    if (this.overflowed) return;
    const lastLineEnd = chunk.lastIndexOf(LF);
    const tail = lastLineEnd === -1 ? this.lineBytes + chunk.length : chunk.length - lastLineEnd - 1;
    // A complete line inside the chunk may be the long one: measure each line the chunk ends.
    let start = 0;
    let running = this.lineBytes;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      running += end - start;
      if (running > this.limit.maxBytes) return this.overflow();
      running = 0;
      start = end + 1;
    }
    if (tail > this.limit.maxBytes) return this.overflow();
    this.lineBytes = tail;
    super.append(chunk);
  }

  override clear(): void {
    this.lineBytes = 0;
    super.clear();
  }

  private overflow(): never {
    this.overflowed = true;
    super.clear();
    throw this.limit.tooLarge();
  }
}
