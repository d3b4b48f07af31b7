/**
 * A body cut short while we read slowly (issue 14, "Downloads that cannot
 * crash"): a server advertises the Node archive's full Content-Length, sends
 * its first MiB and closes the connection (a FIN, as a proxy that drops it
 * does), while the reader holds back. On Node 24.21.0 the built-in fetch
 * dies there with an uncatchable AssertionError from undici's parser
 * (nodejs/undici#5360). The first test shows the scenario really reaches
 * that bug; the second runs our download path (ensureRuntimes, bundled like
 * the release build) on the same Node in the same scenario, slowed by a slow
 * disk, so it cannot pass by missing the bug (with the code that read
 * through Node's fetch, its child died the same way). Ours fails with one
 * sentence naming the artifact, no stack, and leaves nothing in runtime/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { bundleChild } from "../support/child-bundle";

const f = fixtures();
const NODE_PATH = f.pins.node.archives["linux-x64"]!.path;
const SIZE = f.pins.node.archives["linux-x64"]!.size!;
const CUT = 1024 * 1024;

/** Node's own fetch, reading the body with a pause after every chunk. */
const FETCH_CHILD = `
const url = process.argv[2];
(async () => {
  const response = await fetch(url);
  const reader = response.body.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log("read to the end");
})().catch((error) => console.log("caught: " + error.message));
`;

/**
 * Our runtime acquisition, on a slow disk: each write to a file starts 200 ms
 * late and always makes the downloader wait for "drain", so the body is read
 * slowly, as when the disk or the machine is busy.
 */
const OURS_CHILD = `
import { WriteStream } from "node:fs";
import { prefixLayout } from "../../src/core/layout";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { httpClient } from "../../src/io/http-client";

const realWrite = WriteStream.prototype.write;
WriteStream.prototype.write = function (chunk, ...rest) {
  setTimeout(() => {
    if (realWrite.call(this, chunk, ...rest)) this.emit("drain");
  }, 200);
  return false;
};
const args = JSON.parse(process.argv[2]);
const layout = prefixLayout({ home: args.home, platform: "linux", pins: args.pins });
const http = httpClient({ role: "installer", target: "linux-x64", env: process.env });
ensureRuntimes(
  { http, layout, pins: args.pins, source: { kind: "mirror", base: args.base }, target: "linux-x64", env: process.env, fetch: { download: { attempts: 2, backoffMs: 10 } } },
  { pnpm: false },
).then(
  () => { console.log("published"); },
  (error) => { console.error(error.message); process.exitCode = 1; },
);
`;

let work: string;
let fetchChild: string;
let oursChild: string;
let server: Server;
let base: string;
let requests: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "gss-truncated-"));
  fetchChild = join(work, "fetch-child.cjs");
  oursChild = join(work, "ours-child.cjs");
  await bundleChild(FETCH_CHILD, fetchChild, "fetch-child.ts");
  await bundleChild(OURS_CHILD, oursChild, "ours-child.ts");
  const head = (await fs.readFile(join(f.mirrorRoot, NODE_PATH))).subarray(0, CUT);
  server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", (request) => {
      requests.push(request.toString("latin1").split(" ")[1] ?? "");
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${SIZE}\r\nConnection: close\r\n\r\n`);
      socket.write(head);
      socket.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await fs.rm(work, { recursive: true, force: true });
});

describe("a body cut short while the reader is slow, on Node 24.21.0", () => {
  it("is the scenario that crashes Node's own fetch (undici's assert(!this.paused))", async () => {
    // The race is the parser's: on a busy machine the socket's end can reach undici before the pause,
    // and fetch then rejects with "terminated". Up to five tries; one crash shows the scenario reaches the bug.
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = await runCommand(f.node, [fetchChild, `${base}/${NODE_PATH}`], { env: homeEnv(work) });
      const crashed = r.stdout === "" && r.code !== 0 && r.stderr.includes("assert(!this.paused)");
      outcomes.push(crashed ? "crashed" : `exit ${r.code}: ${r.stdout.trim() || r.stderr.split("\n")[0]}`);
      if (crashed) break;
    }
    expect(outcomes, outcomes.join("; ")).toContain("crashed");
  });

  it("ends our download with one sentence naming the artifact, no stack, and nothing left in runtime/", async () => {
    requests = [];
    const home = join(work, "home");
    await fs.mkdir(home, { recursive: true });
    const r = await runCommand(f.node, [oursChild, JSON.stringify({ home, pins: f.pins, base })], { env: homeEnv(home) });
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      new RegExp(
        `^Node 24\\.21\\.0 \\(linux-x64\\): ${base.replace(/[.]/g, "\\.")}/${NODE_PATH.replace(/[.]/g, "\\.")} ` +
          `(broke off after \\d+ bytes \\(ECONNRESET\\)|ended after \\d+ of ${SIZE} bytes) \\(gave up after 2 attempts\\)$`,
      ),
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(requests).toEqual([`/${NODE_PATH}`, `/${NODE_PATH}`]);
    expect(await fs.readdir(join(home, ".gentle-shell", "runtime"))).toEqual([]);
  });
});
