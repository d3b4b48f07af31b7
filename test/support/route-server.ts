/**
 * A loopback HTTP server for one describe block that answers fixed routes
 * (the body for an exact URL, else 404), listening before the block's tests
 * and closed after them:
 *
 *   const site = routeServer({ "/a": "body" });   // site.base() once the tests run
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

export function routeServer(routes: Record<string, string>, seen?: (req: IncomingMessage) => void): { base: () => string } {
  let base = "";
  const server = createServer((req, res) => {
    seen?.(req);
    const body = routes[req.url!];
    if (body === undefined) res.writeHead(404).end("Not Found");
    else res.end(body);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base: () => base };
}
