/**
 * A crash between staging and rename (spec: "Ownership rules", Runtimes):
 * a child process installs Node from a bundled copy of src, and is killed
 * with SIGKILL at a point the test controls: while the mirror stalls the
 * download, and right before the rename (through the context's
 * beforePublish hook, which only an importing script can pass). Nothing is
 * published, and the next run cleans the dead child's leftovers and succeeds.
 * The same for an offline bundle: a failed `bundle` leaves neither its
 * partial folder nor its scratch prefix, and sweeps a killed run's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout } from "../../src/core/layout";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { bundleChild } from "../support/child-bundle";
import { runCommand } from "../support/proc";
import { testHost } from "../support/host";

const f = fixtures();
const release = f.releases[f.releases.length - 1]!;
const NODE_PATH = f.pins.node.archives["linux-x64"]!.path;

const CHILD = `
import { promises as fs } from "node:fs";
import { prefixLayout } from "../../src/core/layout";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { httpClient } from "../../src/io/http-client";

const args = JSON.parse(process.argv[2]);
setInterval(() => {}, 1000); // stay alive until killed
const beforePublish =
  args.hang === "publish"
    ? async (_name: string, staging: string) => {
        await fs.writeFile(args.signal, staging);
        await new Promise(() => {});
      }
    : undefined;
const layout = prefixLayout({ home: args.home, platform: "linux", pins: args.pins });
ensureRuntimes(
  { http: httpClient({ role: "installer", target: "linux-x64", env: process.env }), layout, pins: args.pins, source: { kind: "mirror", base: args.base }, target: "linux-x64", env: process.env, fetch: { download: { stallMs: 120000 } }, beforePublish },
  { pnpm: false },
).then(
  () => { console.log("published"); process.exit(0); },
  (error) => { console.error(error.message); process.exit(1); },
);
`;

let work: string;
let bundle: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "gss-crash-"));
  bundle = join(work, "child.cjs");
  await bundleChild(CHILD, bundle, "crash-child.ts");
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

async function waitFor<T>(what: string, probe: () => Promise<T | null>, child: { exitCode: number | null }, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (child.exitCode !== null) throw new Error(`the child exited (${child.exitCode}) before ${what}`);
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function crashAndRecover(hang: "download" | "publish") {
  const home = join(work, `home-${hang}`);
  await fs.mkdir(home, { recursive: true });
  const layout = prefixLayout({ home, platform: "linux", pins: f.pins });
  const scope = await mirrorClient(f.mirrorUrl).scope();
  if (hang === "download") await scope.setFault(NODE_PATH, { kind: "stall", ms: 15_000, afterBytes: 1024 * 1024 });
  const signal = join(work, `signal-${hang}`);
  const child = spawn(process.execPath, [bundle, JSON.stringify({ home, pins: f.pins, base: scope.url, hang, signal })], {
    env: homeEnv(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
  try {
    if (hang === "download") {
      // The partial download is on disk, and the mirror holds the rest back.
      await waitFor(
        "a partial download",
        async () => {
          for (const name of await fs.readdir(layout.runtime).catch(() => [] as string[])) {
            if (name.startsWith(".download-") && (await fs.stat(join(layout.runtime, name))).size >= 1024 * 1024) return name;
          }
          return null;
        },
        child,
      );
    } else {
      await waitFor("the rename", () => fs.readFile(signal, "utf8").catch(() => null), child);
    }
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");

  const left = (await fs.readdir(layout.runtime)).sort();
  expect(left).not.toContain("node-24.21.0");
  const prefix = hang === "download" ? `.download-${child.pid}-` : `.staging-node-24.21.0-${child.pid}-`;
  expect(left.filter((n) => n.startsWith(prefix))).toHaveLength(1);

  await scope.clearFaults();
  const next = await ensureRuntimes(
    { http: testHost({ env: homeEnv(home) }).http, layout, pins: f.pins, source: { kind: "mirror", base: scope.url }, target: "linux-x64", env: homeEnv(home) },
    { pnpm: false },
  );
  expect(next.node.status).toBe("installed");
  expect(await fs.readdir(layout.runtime)).toEqual(["node-24.21.0"]);
}

describe("kill -9 of an installer", () => {
  it("while the download stalls: nothing published, the next run cleans the partial file and succeeds", async () => {
    await crashAndRecover("download");
  });

  it("right before the rename: nothing published, the next run cleans the dead staging folder and succeeds", async () => {
    await crashAndRecover("publish");
  });
});

describe("a bundle that cannot be made, after a killed one", () => {
  it("removes its scratch prefix too, and the next run sweeps what a killed run left (its partial bundle, its scratch prefix)", async () => {
    // What a run killed before its cleanup leaves, named with its (now dead) pid; and the same names of a live process.
    const dead = Number(spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" }).stdout.trim());
    const temp = join(work, "tmp-sweep");
    const parent = join(work, "sweep");
    await fs.mkdir(temp, { recursive: true });
    await fs.mkdir(join(parent, `.partial-old-bundle-${dead}-0123abcd`, "node"), { recursive: true });
    await fs.mkdir(join(temp, `.gss-bundle-${dead}-0123abcd`, "prefix"), { recursive: true });
    await fs.mkdir(join(parent, `.partial-old-bundle-1-0123abcd`));
    await fs.mkdir(join(temp, "unrelated-9-0123abcd"));
    const out = join(parent, "failed-bundle");
    const r = await runCommand(f.binary!, ["bundle", "--out", out, "--source", f.mirrorUrl, "--release", release.shell, "--target", "linux-x64,linux-arm64"], {
      env: homeEnv(work, { TMPDIR: temp }),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/Node 24\.21\.0 \(linux-arm64\)/);
    expect(await fs.readdir(parent)).toEqual([".partial-old-bundle-1-0123abcd"]);
    expect(await fs.readdir(temp)).toEqual(["unrelated-9-0123abcd"]);
  });
});
