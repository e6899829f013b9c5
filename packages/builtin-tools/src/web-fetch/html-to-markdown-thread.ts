import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown, type HtmlToMarkdownOptions } from '@agentq/kb/html-to-markdown';

/** A conversion asked of the thread. */
export interface HtmlConversionRequest {
  id: number;
  html: string;
  options: HtmlToMarkdownOptions;
}

// The entry of a conversion thread (see createHtmlConverter): it says it is ready once its modules
// are loaded, then answers one request at a time with the page or the error's message.
parentPort?.on('message', (request: HtmlConversionRequest) => {
  try {
    parentPort?.postMessage({ id: request.id, page: htmlToMarkdown(request.html, request.options) });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort?.postMessage({ ready: true });
