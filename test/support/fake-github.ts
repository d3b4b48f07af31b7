/**
 * GitHub's release downloads and Node's download host, as they answer, for
 * the release rehearsal (test/integration/release-rehearsal.test.ts): one
 * HTTPS server with a certificate from a test CA for every name it answers.
 *
 *   github.com/<home>/releases/download/<tag>/<asset>
 *       302 to release-assets.githubusercontent.com, when <tag> is a
 *       published release holding <asset>; a draft, or no such release: 404
 *   github.com/<home>/releases/latest/download/<asset>
 *       302 to the newest published release's download URL; none: 404
 *   github.com/<owner>/<repo>/releases/download/<tail>  (Engram, fd, ripgrep)
 *       302 to objects.githubusercontent.com, served from the fixture mirror
 *   nodejs.org/dist/<tail>
 *       the fixture mirror's node/<tail>
 *
 * Every request is logged with its host, path, status and User-Agent.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import { join, normalize } from "pathe";

export const GITHUB_NAMES = ["github.com", "release-assets.githubusercontent.com", "objects.githubusercontent.com", "nodejs.org"] as const;

/** Other projects' GitHub releases the install downloads, by repository, and their folder in the fixture mirror. */
const MIRRORED_REPOS: Record<string, string> = {
  "Gentleman-Programming/engram": "engram",
  "sharkdp/fd": "fd",
  "BurntSushi/ripgrep": "ripgrep",
};

export interface FakeGitHubRequest {
  host: string;
  path: string;
  status: number;
  userAgent: string | null;
}

export interface FakeGitHub {
  /** A release of `home` tagged `tag`, its assets the files in `dir`; a draft until published. */
  addRelease(tag: string, dir: string): void;
  publish(tag: string): void;
  requests: FakeGitHubRequest[];
  /** The port it listens on: 443 unless `port` chose another (0: any free one, for a proxy to carry github.com:443 to). */
  port: number;
  close(): Promise<void>;
}

export async function startFakeGitHub(options: {
  home: string;
  key: Buffer;
  cert: Buffer;
  listen: string;
  mirrorRoot: string;
  port?: number;
}): Promise<FakeGitHub> {
  const releases = new Map<string, { dir: string; published: number | null }>();
  const requests: FakeGitHubRequest[] = [];
  let order = 0;
  const within = (root: string, rel: string): string | null => {
    const file = normalize(join(root, rel));
    return file.startsWith(`${normalize(root)}/`) ? file : null;
  };
  const server: Server = createServer({ key: options.key, cert: options.cert }, async (req, res) => {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "");
    const path = decodeURIComponent(new URL(req.url ?? "/", "https://x").pathname);
    const answer = (status: number, headers: Record<string, string> = {}) => {
      requests.push({ host, path, status, userAgent: req.headers["user-agent"] ?? null });
      res.writeHead(status, headers);
    };
    const notFound = () => {
      answer(404);
      res.end("Not Found");
    };
    const serve = async (file: string | null) => {
      const info = file ? await stat(file).catch(() => null) : null;
      if (!file || !info?.isFile()) return notFound();
      answer(200, { "content-length": String(info.size), "content-type": "application/octet-stream" });
      createReadStream(file).pipe(res);
    };
    const ours = `/${options.home}/releases/`;
    if (host === "github.com" && path.startsWith(ours)) {
      const rest = path.slice(ours.length).split("/");
      if (rest[0] === "latest" && rest[1] === "download" && rest.length === 3) {
        const newest = [...releases.entries()].filter(([, r]) => r.published !== null).sort((a, b) => b[1].published! - a[1].published!)[0];
        if (!newest) return notFound();
        answer(302, { location: `https://github.com${ours}download/${newest[0]}/${rest[2]}` });
        return void res.end();
      }
      if (rest[0] === "download" && rest.length === 3) {
        const release = releases.get(rest[1]!);
        const file = release && release.published !== null ? within(release.dir, rest[2]!) : null;
        if (!file || !(await stat(file).catch(() => null))) return notFound();
        answer(302, { location: `https://release-assets.githubusercontent.com/${options.home}/${rest[1]}/${rest[2]}` });
        return void res.end();
      }
    }
    if (host === "github.com") {
      const repo = Object.keys(MIRRORED_REPOS).find((r) => path.startsWith(`/${r}/releases/download/`));
      if (repo) {
        answer(302, { location: `https://objects.githubusercontent.com/${MIRRORED_REPOS[repo]}/${path.slice(`/${repo}/releases/download/`.length)}` });
        return void res.end();
      }
    }
    if (host === "release-assets.githubusercontent.com" && path.startsWith(`/${options.home}/`)) {
      const [tag, asset] = path.slice(options.home.length + 2).split("/");
      const release = tag ? releases.get(tag) : undefined;
      return serve(release && asset ? within(release.dir, asset) : null);
    }
    if (host === "objects.githubusercontent.com") return serve(within(options.mirrorRoot, path.slice(1)));
    if (host === "nodejs.org" && path.startsWith("/dist/")) return serve(within(join(options.mirrorRoot, "node"), path.slice("/dist/".length)));
    notFound();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 443, options.listen, () => resolve());
  });
  return {
    addRelease: (tag, dir) => void releases.set(tag, { dir, published: null }),
    publish(tag) {
      const release = releases.get(tag);
      if (!release) throw new Error(`no release ${tag}`);
      release.published = ++order;
    },
    requests,
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
