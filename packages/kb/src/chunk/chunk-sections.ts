/** A run of text under one heading path, or one page of a PDF. */
export interface DocumentSection {
  /** Heading path, e.g. `Setup > Redis`. */
  heading?: string;
  /** 1-based page number, for paged documents. */
  page?: number;
  text: string;
}

/** One chunk before it is stored. */
export interface PlannedChunk {
  ordinal: number;
  text: string;
  heading?: string;
  page?: number;
}

/** Options of {@link chunkSections}. */
export interface ChunkOptions {
  /** Target chunk size in characters. @default 1200 */
  size?: number;
  /** Characters of the previous chunk repeated at the start of the next one in the same section. @default 200 */
  overlap?: number;
}

/**
 * Cuts sections into chunks of about `size` characters. A chunk never spans two sections, so
 * every chunk has one heading (or page); inside a section consecutive chunks share `overlap`
 * characters, so a sentence cut at a boundary is still whole in one of them. Cuts fall on a
 * paragraph break, else a line break, else a sentence end, else a space, whichever is nearest
 * the target. Deterministic: the same sections always give the same chunks, which is what makes
 * chunk ids stable across a resumed ingest.
 */
export function chunkSections(sections: readonly DocumentSection[], options: ChunkOptions = {}): PlannedChunk[] {
  const size = Math.max(200, options.size ?? 1_200);
  const overlap = Math.min(Math.max(0, options.overlap ?? 200), Math.floor(size / 2));
  const chunks: PlannedChunk[] = [];
  for (const section of sections) {
    const text = section.text.trim();
    if (text === '') continue;
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + size);
      if (end < text.length) end = cutPoint(text, start + Math.floor(size / 2), end);
      const piece = text.slice(start, end).trim();
      if (piece !== '') {
        const chunk: PlannedChunk = { ordinal: chunks.length, text: piece };
        if (section.heading !== undefined) chunk.heading = section.heading;
        if (section.page !== undefined) chunk.page = section.page;
        chunks.push(chunk);
      }
      if (end >= text.length) break;
      // Step back by the overlap, then forward to a word start so no chunk begins mid-word.
      let next = Math.max(start + 1, end - overlap);
      const space = text.indexOf(' ', next);
      if (space !== -1 && space < end) next = space + 1;
      start = next;
    }
  }
  return chunks;
}

function cutPoint(text: string, from: number, to: number): number {
  for (const separator of ['\n\n', '\n', '. ', ' ']) {
    const at = text.lastIndexOf(separator, to - separator.length);
    if (at >= from) return at + separator.length;
  }
  return to;
}
