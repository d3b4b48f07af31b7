/**
 * The Windows launcher as the product starts it, run by Windows Node under
 * Wine (issue 24; test/wine/lane.sh runs this file there, and it refuses to
 * run anywhere but Windows; ci.yml runs it on windows-latest too, where
 * the % check must run). The prefix's path holds í, a space, !, & and
 * parentheses, and % where cmd.exe can say it (a probe). The .cmd is the real one (ensureLauncher), cmd.exe
 * is Wine's (or Windows'), and node.exe is the pinned Node 24.21.0 from the
 * toolchain, whatever Node runs this file (windows-latest's setup-node gives
 * Node 20, which has no http.setGlobalProxyFromEnv for the engine); the version's
 * engine is a stand-in that reports what it was given.
 */
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { ENGINE_FLAG } from "../../src/core/engine-flags";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { activateVersion } from "../../src/install/activate";
import { ensureLauncher, NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT } from "../../src/install/launcher";
import { setupCommand } from "../../src/install/setup-step";
import { ENGINE_PATH } from "../../src/install/engine-start";
import { VERSION_MARKER } from "../../src/install/version-marker";
import { run, runLauncher } from "../../src/io/process";
import { productionPins } from "../../src/pins/production";
import { pinnedNode } from "../support/toolchain";

const ID = "4.1.0-1.6.0";
/** The stand-in engine: its arguments and the variables the launcher sets, as JSON; exits with GSS_EXIT. */
const ENGINE = `const fs = require("node:fs");
const report = { argv: process.argv.slice(2), nodeOptions: process.env.NODE_OPTIONS ?? null, user: process.env.GENTLE_SHELL_USER_NODE_OPTIONS ?? null, file: __filename };
if (process.env.GSS_REWRITE) fs.writeFileSync(process.env.GSS_REWRITE, fs.readFileSync(process.env.GSS_REWRITE, "latin1").replace(/\\r\\n/g, "\\r\\nREM " + "x".repeat(40) + "\\r\\n") + "ECHO after-the-rewrite\\r\\n", "latin1");
process.stdout.write(JSON.stringify(report) + "\\n");
process.exitCode = Number(process.env.GSS_EXIT ?? 0);
`;

let layout: Layout;
const env = () => ({ ...process.env }) as Record<string, string | undefined>;

/** A prefix with the launcher, our node.exe (the pinned Node), and the stand-in engine as the active version. */
async function makeInstall(folder: string): Promise<Layout> {
  const base = mkdtempSync(join(tmpdir(), "gss-wine-"));
  const made = prefixLayout({ home: base, platform: "win32", pins: productionPins, windowsPrefix: join(base, folder, "gentle-shell") });
  await fs.mkdir(join(made.versions, ID, ".gentle-shell"), { recursive: true });
  await fs.writeFile(join(made.versions, ID, ENGINE_PATH), ENGINE);
  await fs.writeFile(join(made.versions, ID, VERSION_MARKER), `${ID}\n`);
  await fs.mkdir(made.nodeDir, { recursive: true });
  await fs.copyFile(await pinnedNode(), made.node);
  await activateVersion(made, ID);
  await ensureLauncher(made);
  return made;
}

/**
 * Capability probe: does this cmd.exe keep a % of the batch file's own path
 * in %~dp0? Windows' does; Wine 10's drops it, and then no batch file can
 * learn its folder. A yes runs the % prefix check below; a no skips it,
 * and the lane's summary counts it.
 */
async function cmdKeepsPercentInOwnPath(): Promise<boolean> {
  const dir = join(mkdtempSync(join(tmpdir(), "gss-wine-probe-")), "p%q");
  await fs.mkdir(dir);
  const probe = join(dir, "probe.cmd");
  await fs.writeFile(probe, "@ECHO OFF\r\nECHO [%~dp0]\r\n");
  // Started as the product starts the launcher (core/cmd-call.ts).
  const r = await runLauncher({ platform: "win32", launcher: probe }, [], { env: env(), timeoutMs: 60_000 });
  return r.stdout.includes("p%q");
}
let percent = false;

beforeAll(async () => {
  expect(process.platform, "this file is for Windows Node (test/wine/lane.sh runs it under Wine)").toBe("win32");
  layout = await makeInstall("Gentle Shell í ! & (x)");
  percent = await cmdKeepsPercentInOwnPath();
}, 120_000);

const report = (stdout: string) =>
  JSON.parse(stdout.trim().split(/\r?\n/)[0]!) as { argv: string[]; nodeOptions: string | null; user: string | null; file: string };

describe("the .cmd launcher through cmd.exe, from a prefix whose path holds í, a space, !, & and parentheses", () => {
  it("is ASCII, and runs the version's engine on our node.exe with every argument, as verify-launcher starts it", async () => {
    expect(await fs.readFile(layout.launcher, "latin1")).toMatch(/^[\x20-\x7e\r\n]*$/);
    const r = await runLauncher(layout, ["--version"], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const seen = report(r.stdout);
    expect(seen.argv).toEqual([ENGINE_FLAG, "--version"]);
    expect(seen.file.replace(/\\/g, "/").toLowerCase()).toBe(join(layout.versions, ID, ENGINE_PATH).toLowerCase());
  });

  it("passes the engine's exit code through", async () => {
    const r = await runLauncher(layout, ["status"], { env: { ...env(), GSS_EXIT: "7" }, timeoutMs: 60_000 });
    expect(r.code).toBe(7);
    expect(report(r.stdout).argv).toEqual([ENGINE_FLAG, "status"]);
  });

  it("starts the engine whatever NODE_OPTIONS says, and hands the user's value on", async () => {
    const r = await runLauncher(layout, ["--version"], { env: { ...env(), NODE_OPTIONS: "--require ./no-such-file.js" }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(report(r.stdout)).toMatchObject({ nodeOptions: null, user: "--require ./no-such-file.js" });
  });

  it("reads no line of itself after node.exe returns: an upgrade that rewrites it meanwhile changes nothing of this run", async () => {
    const r = await runLauncher(layout, ["--version"], { env: { ...env(), GSS_REWRITE: layout.launcher, GSS_EXIT: "0" }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("after-the-rewrite");
    expect(r.stdout.trim().split(/\r?\n/)).toHaveLength(1);
    expect(r.stderr).toBe("");
    // The rewritten file still carries our marker: the launcher is ours to write again.
    expect(await ensureLauncher(layout)).toMatchObject({ status: "written" });
  });

  it("with no current, or an empty one, an inherited GS_ID names no version: the exact message alone, exit 1", async () => {
    await fs.rename(layout.current, `${layout.current}.away`);
    try {
      for (const current of [null, ""]) {
        if (current !== null) await fs.writeFile(layout.current, current);
        const r = await runLauncher(layout, ["--version"], { env: { ...env(), GS_ID: ID }, timeoutMs: 60_000 });
        expect(r.code).toBe(1);
        // cmd.exe's ECHO keeps the space before 1>&2 at each line's end.
        expect(r.stderr.split(/\r?\n/).map((l) => l.trimEnd())).toEqual([NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT, ""]);
        expect(r.stdout.trim()).toBe("");
      }
    } finally {
      await fs.rm(layout.current, { force: true });
      await fs.rename(`${layout.current}.away`, layout.current);
    }
  });
});

describe("a current naming a folder without our version marker", () => {
  it("starts no engine there: the exact message alone, exit 1", async () => {
    const marker = join(layout.versions, ID, VERSION_MARKER);
    await fs.rename(marker, `${marker}.away`);
    try {
      const r = await runLauncher(layout, ["--version"], { env: env(), timeoutMs: 60_000 });
      expect(r.code).toBe(1);
      expect(r.stdout.trim()).toBe("");
      expect(r.stderr.split(/\r?\n/).map((l) => l.trimEnd())).toEqual([NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT, ""]);
    } finally {
      await fs.rename(`${marker}.away`, marker);
    }
  });
});

describe("a prefix whose path also holds %", () => {
  it("runs the engine like any other prefix (skipped when the probe finds a cmd.exe that drops % from %~dp0, as Wine's does)", async (ctx) => {
    if (!percent) {
      // windows-latest (ci.yml sets GSS_NATIVE_WINDOWS) must run this check: only Wine's cmd.exe may skip it.
      expect(process.env.GSS_NATIVE_WINDOWS, "native Windows' cmd.exe keeps % in %~dp0, so this check must run there").toBeUndefined();
      ctx.skip();
    }
    const odd = await makeInstall("Gentle Shell í !%& (x)");
    const r = await runLauncher(odd, ["--version"], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(report(r.stdout).argv).toEqual([ENGINE_FLAG, "--version"]);
  });
});

describe("the other spawn forms the product uses on Windows", () => {
  it("setup's and upgrade step 5's: our node.exe with the version's engine, never the .cmd", async () => {
    const setup = setupCommand(layout, ID);
    const s = await run(setup.command, setup.args, { env: env(), timeoutMs: 60_000 });
    expect(s.code, s.stderr).toBe(0);
    expect(report(s.stdout).argv).toEqual([ENGINE_FLAG, "setup"]);
    const engine = join(layout.versions, ID, ENGINE_PATH);
    const v = await run(layout.node, [engine, ENGINE_FLAG, "--version"], {
      env: { ...env(), GENTLE_SHELL_VERIFY_VERSION: ID },
      timeoutMs: 60_000,
    });
    expect(v.code, v.stderr).toBe(0);
    expect(report(v.stdout).argv).toEqual([ENGINE_FLAG, "--version"]);
  });
});
