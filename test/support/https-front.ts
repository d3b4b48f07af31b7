/**
 * An HTTPS front for one of the tests' loopback HTTP servers (the fixture
 * registry, mirror or stub model), its certificate from a test CA, as a
 * repository manager or an API behind a private CA would be. Every request
 * goes on to the server as it came, marked as forwarded from https.
 */
import { request as httpRequest } from "node:http";
import { createServer, type Server } from "node:https";
import type { TestCa } from "./test-ca";

export async function startHttpsFront(ca: TestCa, upstreamUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(upstreamUrl);
  const server: Server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, "x-forwarded-proto": "https" } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
