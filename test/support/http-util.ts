/** The small HTTP pieces the fixture servers share. */
import { createReadStream } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** A scoped fixture server's request path: `/s/<scope>/<path>` names a scope of its own, anything else the default scope (""). */
export function scopedPath(path: string): { scopeName: string; path: string } {
  const scoped = /^\/s\/([A-Za-z0-9_-]+)(\/.*)$/.exec(path);
  return scoped ? { scopeName: scoped[1]!, path: scoped[2]! } : { scopeName: "", path };
}

/**
 * A loopback server answering GET `path` with the file `files` maps it to
 * (404 for any other path), after `rewrite` turns the request's path into a
 * key; `seen` collects each request's path as it came. Its base URL and a
 * close. For the tests that serve a release's setup binaries as a download
 * place does (install.sh, the GitHub Action).
 */
export async function serveFiles(
  files: ReadonlyMap<string, string>,
  options: { rewrite?: (path: string) => string; seen?: string[] } = {},
): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = req.url ?? "";
    options.seen?.push(path);
    const file = files.get(options.rewrite ? options.rewrite(path) : path);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200);
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
