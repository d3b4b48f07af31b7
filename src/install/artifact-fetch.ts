/**
 * Getting one artifact from a source into a folder of ours, verified. A URL is
 * asked through the Host's HTTP client (../io/http-client.ts), whose policy
 * says where it may be redirected and which authorities it trusts; a folder is
 * read without it.
 */
import { createWriteStream, promises as fs } from "node:fs";
import { pipeline } from "node:stream/promises";
import { artifactLocation, type Source } from "../core/source";
import { verifyFile, type DownloadOptions, type Expected } from "../io/download";
import type { HttpClient } from "../io/http-client";
import { stagingPath } from "../io/staging";
import { openSourceFile, readSourceFile } from "../io/own-dir";
import { rm } from "../io/locked-retry";

export interface FetchOptions {
  headers?: Record<string, string>;
  download?: Partial<DownloadOptions>;
}

/** Fetch `path` from `source` into a new file in `dir`; returns its path. Nothing unverified stays. */
export async function fetchArtifact(
  http: HttpClient,
  source: Source,
  path: string,
  dir: string,
  expected: Expected,
  options: FetchOptions = {},
): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const dest = stagingPath(dir, "download");
  const location = artifactLocation(source, path);
  try {
    if (source.kind === "folder") {
      // Opened without following a link (no special file, not over the cap), copied from that descriptor, and the copy verified.
      const handle = await openSourceFile(source.root, location, expected.name, expected.maxBytes);
      const { size } = await handle.stat();
      await pipeline(handle.createReadStream({ end: expected.maxBytes - 1 }), createWriteStream(dest, { flags: "wx", mode: 0o600 }));
      options.download?.progress?.update(size, size);
      await verifyFile(dest, expected).catch((error: unknown) => {
        options.download?.progress?.fail("check");
        throw error;
      });
      options.download?.progress?.done();
    } else {
      await http.download(location, dest, expected, { headers: options.headers, ...options.download });
    }
    return dest;
  } catch (error) {
    await rm(dest, { force: true });
    throw error;
  }
}

/** Fetch a small asset's exact bytes with a size cap; the caller checks them (the signed release manifest). */
export async function fetchBytes(http: HttpClient, source: Source, path: string, name: string, maxBytes: number, options: FetchOptions = {}): Promise<Buffer> {
  const location = artifactLocation(source, path);
  if (source.kind === "folder") {
    return readSourceFile(source.root, location, name, maxBytes);
  }
  return http.fetchBytes(location, { name, maxBytes, headers: options.headers });
}
