/**
 * `npm run demo`, the newcomer's first command (README; issue 25, defect 8):
 * it installs into a throwaway HOME and asks the real Pi one question, whose
 * launch starts the shared Engram server from that HOME's runtime. When the
 * demo ends, nothing it started runs or listens: not that server (whose
 * working folder, the HOME, is gone), not its fixtures.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "pathe";
import { scratchDir } from "../support/scratch";

const repo = join(import.meta.dirname, "..", "..");

/** Processes whose executable or working folder lies in `dir`. */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    for (const link of ["exe", "cwd"]) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${name}/${link}`);
      } catch {
        continue;
      }
      if (target === dir || target.startsWith(`${dir}/`) || target.startsWith(`${dir} (deleted)`)) found.push(`pid ${name}: ${link} ${target}`);
    }
  }
  return found;
}

/** Whether something listens on Engram's own 127.0.0.1:7437 (the endpoint the demo's launcher uses). */
function engramPortTaken(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: 7437 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function demo(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    // Its own fixture binary: the suite's releases list the one in dist/fixture, which this run must not replace.
    const env = { ...process.env, GSS_FIXTURE_DIST: scratchDir("gss-demo-dist-") };
    const child = spawn(process.execPath, [join(repo, "build", "demo.mjs")], { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("npm run demo", () => {
  it("asks the real Pi through the installed launcher, and leaves nothing of its run running", async (ctx) => {
    // Another program's server there would be reused, and the demo would start none to stop.
    if (await engramPortTaken()) ctx.skip(true, "127.0.0.1:7437 is taken by another program, so the demo's launch starts no Engram server");
    const { code, out } = await demo();
    expect(code, out).toBe(0);
    expect(out).toMatch(/Done in [\d.]+ s: the real Pi [\d.]+ answered through /);
    const home = /Throwaway HOME: (.+) \(its \.npmrc/.exec(out)?.[1];
    expect(home, out).toBeTruthy();
    // Pi's launch started the shared Engram server from the HOME's runtime; the demo stopped it.
    expect(out).toMatch(/Stopped what the demo's run started: \S+ \(pid \d+\)/);
    expect(processesIn(home!)).toEqual([]);
  });
});
