/**
 * Engram startup safety, the start (spec: "Engram startup safety"), through
 * engramLaunchEnvironment when nothing listens: the verified bundled core
 * started detached as plain `engram serve` with the cleaned environment,
 * concurrent launches, a core that fails, a store a newer Engram migrated (a
 * real database header on disk), a missing, unmarked or linked core, and the
 * phases that never start one. Machines from support/engram-machine.ts; a
 * server already listening and the probe: engram-probe.test.ts.
 */
import { classifyLaunch } from "../../src/core/pi-launch";
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { engramLaunchEnvironment } from "../../src/installed/engram/launch";
import { readEngramHeader } from "../../src/installed/engram/probe";
import { fixtureEngram, fixtureReport, machine, serve, work } from "../support/engram-machine";

/** An SQLite header with this user_version, written as ~/.engram/engram.db (or at `file`). */
async function writeStore(home: string, userVersion: number, file = join(home, ".engram", "engram.db")): Promise<void> {
  const b = Buffer.alloc(4096);
  b.write("SQLite format 3\0", 0, "latin1");
  b.writeUInt16BE(4096, 16);
  b[18] = 1;
  b[19] = 1;
  b.writeInt32BE(userVersion, 60);
  await fs.mkdir(join(file, ".."), { recursive: true });
  await fs.writeFile(file, b);
}

describe("nothing listening", () => {
  it("starts the verified core as plain `engram serve`, detached, in home, with the cleaned environment; memory allowed once ready", async () => {
    const m = await machine();
    await writeStore(m.home, 1);
    const env = {
      ...m.env,
      ENGRAM_HTTP_TOKEN: "tok-123",
      ENGRAM_LOG: "debug",
      GH_TOKEN: "gh-1",
      GITHUB_TOKEN: "gh-2",
      TMPDIR: join(work, "gpAb12Cd"),
      KEEP_ME: "yes",
    };
    const r = await engramLaunchEnvironment(m.layout, env, "final", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("started");
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_URL: `http://127.0.0.1:${m.endpoint.port}`,
      ENGRAM_STARTUP_POLICY: "allowed",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(r.notice).toBeUndefined();
    const report = await fixtureReport(m.endpoint);
    expect(report.argv).toEqual(["serve"]);
    expect(report.cwd).toBe(m.home);
    expect(await m.starts()).toEqual([`serve cwd=${m.home}`]);
    const engramKeys = Object.keys(report.env)
      .filter((k) => k.startsWith("ENGRAM_"))
      .sort();
    // ENGRAM_PORT comes from the test's wrapper, not from Shell.
    expect(engramKeys).toEqual(["ENGRAM_NO_UPDATE_CHECK", "ENGRAM_PORT"]);
    expect(report.env.ENGRAM_NO_UPDATE_CHECK).toBe("1");
    expect(report.env.GH_TOKEN).toBeUndefined();
    expect(report.env.GITHUB_TOKEN).toBeUndefined();
    expect(report.env.TMPDIR).toBeUndefined();
    expect(report.env.KEEP_ME).toBe("yes");
    expect(report.env.HOME).toBe(m.home);
    // Its own process group: it outlives the launch like a server other agents' hooks start.
    const pgid = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(report.pid)], { encoding: "utf8" }).trim());
    const ours = Number(execFileSync("ps", ["-o", "pgid=", "-p", String(process.pid)], { encoding: "utf8" }).trim());
    expect(pgid).toBe(report.pid);
    expect(pgid).not.toBe(ours);
  });

  it("concurrent launches converge on one server", async () => {
    const m = await machine();
    const [a, b] = await Promise.all([
      engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint }),
      engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint }),
    ]);
    await fixtureReport(m.endpoint);
    expect(a.decision.memory).toBe("allowed");
    expect(b.decision.memory).toBe("allowed");
    expect(a.set.ENGRAM_URL).toBe(`http://127.0.0.1:${m.endpoint.port}`);
    expect(b.set.ENGRAM_URL).toBe(`http://127.0.0.1:${m.endpoint.port}`);
    expect((await m.starts()).length).toBeGreaterThanOrEqual(1);
  });

  it("a core that exits without answering: memory disabled for this launch with a notice", async () => {
    const m = await machine({ core: "fails" });
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("start-failed");
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(r.notice).toMatch(/exited \(code 1\) before answering ready/);
    expect(await m.starts()).toEqual([`serve cwd=${m.home}`]);
  });

  it("a store migrated by a newer Engram: disabled, nothing started", async () => {
    const m = await machine();
    await writeStore(m.home, 2);
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("newer-store");
    expect(r.set).toEqual({
      ENGRAM_BIN: m.layout.guard,
      ENGRAM_STARTUP_POLICY: "disabled",
      ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
    });
    expect(r.notice).toMatch(/newer Engram/);
    expect(await m.starts()).toEqual([]);
  });

  it("a linked engram.db or a linked ~/.engram is never read: no signal, the server is started", async () => {
    const m = await machine();
    await writeStore(m.home, 7, join(m.home, "elsewhere", "engram.db"));
    await fs.mkdir(join(m.home, ".engram"));
    await fs.symlink(join(m.home, "elsewhere", "engram.db"), join(m.home, ".engram", "engram.db"));
    expect(await readEngramHeader(m.home, m.layout.platform)).toBeNull();
    const other = await machine();
    await fs.symlink(join(m.home, "elsewhere"), join(other.home, ".engram"));
    expect(await readEngramHeader(other.home, other.layout.platform)).toBeNull();
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    await fixtureReport(m.endpoint);
    expect(r.decision.row).toBe("started");
  });

  it("reads exactly the header of a regular engram.db", async () => {
    const m = await machine();
    await writeStore(m.home, 3);
    const header = await readEngramHeader(m.home, m.layout.platform);
    expect(header?.length).toBe(100);
    expect(header?.readInt32BE(60)).toBe(3);
  });

  for (const core of ["missing", "no-marker"] as const) {
    it(`the bundled core ${core}: disabled behind the guard, never an engram from PATH`, async () => {
      const m = await machine({ core });
      const bin = join(m.home, "path-bin");
      await fs.mkdir(bin);
      const used = join(m.home, "path-engram-used");
      await fs.writeFile(join(bin, "engram"), `#!/bin/sh\ntouch '${used}'\n`, { mode: 0o755 });
      const env = { ...m.env, PATH: `${bin}:${m.env.PATH}` };
      const r = await engramLaunchEnvironment(m.layout, env, "final", { endpoint: m.endpoint });
      expect(r.decision.row).toBe("core-missing");
      expect(r.set).toEqual({
        ENGRAM_BIN: m.layout.guard,
        ENGRAM_STARTUP_POLICY: "disabled",
        ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
      });
      expect(r.notice).toMatch(/gentle-shell setup/);
      expect(existsSync(used)).toBe(false);
      expect(await m.starts()).toEqual([]);
    });
  }

  it("a linked core is not verified", async () => {
    const m = await machine({ core: "missing" });
    await fs.mkdir(m.layout.engramDir, { recursive: true });
    await fs.writeFile(join(m.layout.engramDir, RUNTIME_MARKER), "x");
    await fs.symlink(fixtureEngram(), m.layout.engram);
    const r = await engramLaunchEnvironment(m.layout, m.env, "final", { endpoint: m.endpoint });
    expect(r.decision.row).toBe("core-missing");
  });

  it("setup and Pi subcommands classify but never start a server", async () => {
    const m = await machine();
    const setup = await engramLaunchEnvironment(m.layout, m.env, "classify", { endpoint: m.endpoint });
    const list = await engramLaunchEnvironment(m.layout, m.env, classifyLaunch(["list"], {}).kind, { endpoint: m.endpoint });
    for (const r of [setup, list]) {
      expect(r.decision.row).toBe("start-not-allowed");
      expect(r.set).toEqual({
        ENGRAM_BIN: m.layout.guard,
        ENGRAM_STARTUP_POLICY: "disabled",
        ENGRAM_STARTUP_NOTICE: r.notice ?? expect.stringMatching(/^gentle-shell: /),
      });
      expect(r.notice).toBeUndefined();
    }
    expect(await m.starts()).toEqual([]);
  });

  it("setup reuses a ready server for its children", async () => {
    const s = await serve("ready");
    const m = await machine({ port: s.port });
    const r = await engramLaunchEnvironment(m.layout, m.env, "classify", { endpoint: m.endpoint });
    expect(r.set.ENGRAM_URL).toBe(s.url);
  });
});
