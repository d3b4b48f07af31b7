/**
 * A registry for one pnpm run, on 127.0.0.1 only: it serves exactly the
 * tarballs it is given (URL path → file) and answers 404 to anything else.
 * An offline install points pnpm at it, and pnpm checks every tarball
 * against the signed lockfile's integrity, so the bytes on a stick are
 * verified down to each package. Nothing is listened for beyond loopback,
 * and the server stops when the run ends.
 */
import { createReadStream, promises as fs } from "node:fs";
import { createServer, type Server } from "node:http";

export interface LoopbackRegistry {
  /** http://127.0.0.1:<port>/ */
  url: string;
  /** How many tarballs were served so far. */
  served(): number;
  close(): Promise<void>;
}

export async function serveTarballs(files: ReadonlyMap<string, string>): Promise<LoopbackRegistry> {
  let served = 0;
  const server: Server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent((req.url ?? "/").split("?")[0]!).replace(/^\/+/, "");
    } catch {
      path = "";
    }
    const file = req.method === "GET" || req.method === "HEAD" ? files.get(path) : undefined;
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not in the offline bundle\n");
      return;
    }
    fs.stat(file).then(
      (stat) => {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": stat.size });
        if (req.method === "HEAD") {
          res.end();
          return;
        }
        served++;
        const stream = createReadStream(file);
        stream.on("error", () => res.destroy());
        stream.pipe(res);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`the offline install serves the bundle's packages to pnpm on 127.0.0.1, which this machine refused (${error.code ?? error.message})`);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
