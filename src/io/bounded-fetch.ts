/**
 * Small bounded fetches: release assets and registry metadata. Not pinned
 * (their content is checked by their readers), but through the same gate and
 * retry policy as verifiedDownload (./transport); the body is kept in memory,
 * at most `maxBytes`, and a 404 is its own sentence.
 */
import { attemptsOf, gatedGet, TransferError, transferPhrases, withRetries, type Wire } from "./transport";

export interface TextFetchOptions {
  name: string;
  maxBytes: number;
  headers?: Record<string, string>;
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
}

export async function fetchBoundedText(wire: Wire, url: string, options: TextFetchOptions): Promise<string> {
  return (await fetchBoundedBytes(wire, url, options)).toString("utf8");
}

/** The whole body, at most `maxBytes`, identity-encoded, retried on transient failures; for small assets checked by their caller. */
export async function fetchBoundedBytes(wire: Wire, url: string, options: TextFetchOptions): Promise<Buffer> {
  const rules = {
    wire,
    phrases: transferPhrases(options.name, options.maxBytes, true),
    maxBytes: options.maxBytes,
    headers: options.headers,
    timeoutMs: options.timeoutMs ?? 30_000,
  };
  const collect = async (chunks: AsyncIterable<Uint8Array>) => {
    const parts: Buffer[] = [];
    for await (const chunk of chunks) parts.push(Buffer.from(chunk));
    return Buffer.concat(parts);
  };
  try {
    return await withRetries({ attempts: options.attempts ?? 3, backoffMs: options.backoffMs ?? 500 }, () => gatedGet(url, rules, collect));
  } catch (error) {
    const tries = attemptsOf(error);
    if (error instanceof TransferError && error.retryable && tries > 1) throw new Error(`${error.message} (gave up after ${tries} attempts)`);
    throw error;
  }
}
