/**
 * A small forwarding proxy on loopback, for tests of HTTP_PROXY and
 * HTTPS_PROXY: absolute-form HTTP requests are forwarded, CONNECT tunnels
 * are opened; each request is logged ("GET http://host/path", "CONNECT
 * host:port"). It only ever forwards to the loopback servers the tests start.
 */
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect } from "node:net";

export interface ProxyLog {
  /** "GET http://host/path" for plain HTTP, "CONNECT host:port" for tunnels. */
  lines: string[];
}

/**
 * A small forwarding proxy: absolute-form HTTP requests and CONNECT tunnels.
 * With `auth` ("user:password") it demands Basic credentials as a corporate
 * proxy does: anything else is answered 407, and logged as "407 <request>".
 * With `route`, a tunnel to a name the test stands in for ("github.com:443")
 * is opened to the loopback address `route` gives instead ("127.0.0.1:<port>"),
 * as a proxy that resolves names for its clients would; the log keeps the name.
 */
export async function startProxy(options: { auth?: string; route?: (target: string) => string } = {}): Promise<{ url: string; log: ProxyLog; server: Server }> {
  const log: ProxyLog = { lines: [] };
  const wanted = options.auth ? `Basic ${Buffer.from(options.auth).toString("base64")}` : null;
  const refused = (header: string | undefined) => wanted !== null && header !== wanted;
  const server = createHttpServer((req, res) => {
    if (refused(req.headers["proxy-authorization"])) {
      log.lines.push(`407 ${req.method} ${req.url}`);
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="corporate"' });
      res.end();
      return;
    }
    log.lines.push(`${req.method} ${req.url}`);
    forwardPlain(req, res);
  });
  server.on("connect", (req, socket, head) => {
    if (refused(req.headers["proxy-authorization"])) {
      log.lines.push(`407 CONNECT ${req.url}`);
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corporate"\r\n\r\n');
      return;
    }
    log.lines.push(`CONNECT ${req.url}`);
    const [host, port] = (options.route?.(req.url!) ?? req.url!).split(":");
    const upstream = connect(Number(port), host!, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, log, server };
}

/** An absolute-form plain HTTP request (`GET http://host/path`), sent on to its origin as it came. */
export function forwardPlain(req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(req.url ?? "/");
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}

/** The proxy carried a request for `url`: absolute-form for plain HTTP, or a tunnel (undici tunnels plain HTTP too). */
export function carriedBy(log: ProxyLog, url: string): string[] {
  const u = new URL(url);
  return log.lines.filter((line) => line === `GET ${url}` || line === `CONNECT ${u.host}`);
}

export async function stopProxy(proxy: { server: Server } | undefined): Promise<void> {
  if (!proxy) return;
  proxy.server.closeAllConnections();
  await new Promise((r) => proxy.server.close(r));
}
