/** Getting one artifact from a source into a folder of ours, verified. */
import { promises as fs } from "node:fs";
import { artifactLocation, redirectHostsFor, type Source } from "../core/source";
import { verifiedDownload, verifyFile, type DownloadOptions, type Expected } from "../io/download";
import { stagingPath } from "../io/staging";

export interface FetchOptions {
  headers?: Record<string, string>;
  download?: Partial<DownloadOptions>;
}

/** Fetch `path` from `source` into a new file in `dir`; returns its path. Nothing unverified stays. */
export async function fetchArtifact(source: Source, path: string, dir: string, expected: Expected, options: FetchOptions = {}): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const dest = stagingPath(dir, "download");
  const location = artifactLocation(source, path);
  try {
    if (source.kind === "folder") {
      // Checked before the copy (no link, no special file, not over the cap), and the copy verified.
      const stat = await fs.lstat(location).catch(() => null);
      if (!stat?.isFile()) throw new Error(`${expected.name} is not a regular file in ${source.root} (${path})`);
      if (stat.size > expected.maxBytes) throw new Error(`${expected.name} in ${source.root} is larger than the ${expected.maxBytes} bytes allowed`);
      await fs.copyFile(location, dest);
      await verifyFile(dest, expected);
      options.download?.progress?.update(stat.size, stat.size);
      options.download?.progress?.done();
    } else {
      await verifiedDownload(location, dest, expected, {
        redirectHosts: redirectHostsFor(source, path),
        headers: options.headers,
        ...options.download,
      });
    }
    return dest;
  } catch (error) {
    await fs.rm(dest, { force: true });
    throw error;
  }
}

/** Fetch a small asset's exact bytes with a size cap; the caller checks them (the signed release manifest). */
export async function fetchBytes(source: Source, path: string, name: string, maxBytes: number, options: FetchOptions = {}): Promise<Buffer> {
  const location = artifactLocation(source, path);
  if (source.kind === "folder") {
    const stat = await fs.lstat(location).catch(() => null);
    if (!stat) throw Object.assign(new Error(`${name} is not in ${source.root} (${path})`), { status: 404 });
    if (!stat.isFile()) throw new Error(`${name} in ${source.root} is not a regular file (${path})`);
    if (stat.size > maxBytes) throw new Error(`${name} in ${source.root} is larger than ${maxBytes} bytes`);
    return fs.readFile(location);
  }
  const { fetchBoundedBytes } = await import("../io/http");
  return fetchBoundedBytes(location, { name, maxBytes, redirectHosts: redirectHostsFor(source, path), headers: options.headers });
}
