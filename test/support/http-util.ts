/** The small HTTP pieces the fixture servers share. */
import type { IncomingMessage, ServerResponse } from "node:http";

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
