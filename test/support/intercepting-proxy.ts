/**
 * A TLS-inspecting proxy, as corporate networks run one: every CONNECT
 * tunnel is answered, then its TLS is terminated here with a certificate
 * from the test CA (never the origin's), each request read in the clear and
 * logged ("GET https://host:port/path"), and sent on to the origin over a
 * new TLS connection that trusts the test CA. A client gets through only
 * when it trusts that CA. It only forwards to the loopback servers the
 * tests start. Plain HTTP requests (absolute-form) are forwarded as they are.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { forwardPlain } from "./proxy";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { TestCa } from "./test-ca";

export interface InterceptingProxy {
  url: string;
  /** "CONNECT host:port" for each tunnel, "<METHOD> https://host:port<path>" for each request read inside one. */
  lines: string[];
  close(): Promise<void>;
}

export async function startInterceptingProxy(ca: TestCa, caPem: string): Promise<InterceptingProxy> {
  const lines: string[] = [];
  const targets = new WeakMap<Socket, string>();
  const open = new Set<Socket>();
  // The requests read out of the tunnels, each sent on to its origin.
  const inside = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const target = targets.get(req.socket) ?? "";
    const [host, port] = target.split(":");
    lines.push(`${req.method} https://${target}${req.url}`);
    const upstream = httpsRequest({ host, port: Number(port), path: req.url, method: req.method, headers: req.headers, ca: caPem }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  // Plain HTTP (absolute-form) is forwarded as it is, and logged too: pnpm sends an http registry's requests here
  // when only HTTPS_PROXY is set, as a corporate proxy would carry them.
  const server: Server = createHttpServer((req, res) => {
    lines.push(`${req.method} ${req.url}`);
    forwardPlain(req, res);
  });
  server.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    lines.push(`CONNECT ${req.url}`);
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    // What comes first decides, as an inspecting proxy peeks: a TLS handshake (0x16) is terminated here; anything
    // else (undici tunnels plain HTTP too) goes through the tunnel untouched.
    const decide = (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === 0x16) {
        const tls = new TLSSocket(socket, { isServer: true, key: ca.key, cert: ca.cert });
        tls.on("error", () => socket.destroy());
        targets.set(tls, req.url ?? "");
        inside.emit("connection", tls);
        return;
      }
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host!, () => {
        upstream.pipe(socket);
        socket.pipe(upstream);
        socket.resume();
      });
      upstream.on("error", () => socket.destroy());
    };
    if (head.length) decide(head);
    else socket.once("data", decide);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    lines,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
