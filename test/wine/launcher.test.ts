/**
 * The Windows launcher as the product starts it, run by Windows Node under
 * Wine (issue 24; test/wine/lane.sh runs this file there, and it refuses to
 * run anywhere but Windows). The prefix's path holds í, a space, !, %, &
 * and parentheses. The .cmd is the real one (ensureLauncher), cmd.exe
 * is Wine's, and node.exe is the Windows Node that runs this file; the
 * version's engine is a stand-in that reports what it was given.
 */
import { execPath } from "node:process";
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { ENGINE_FLAG, ENGINE_NODE_OPTIONS } from "../../src/core/engine-flags";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { activateVersion } from "../../src/install/activate";
import { ensureLauncher, NO_ACTIVE_VERSION } from "../../src/install/launcher";
import { setupCommand } from "../../src/install/setup-step";
import { ENGINE_PATH } from "../../src/install/version";
import { run, runLauncher } from "../../src/io/process";
import { productionPins } from "../../src/pins/production";

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

beforeAll(async () => {
  expect(process.platform, "this file is for Windows Node (test/wine/lane.sh runs it under Wine)").toBe("win32");
  const base = mkdtempSync(join(tmpdir(), "gss-wine-"));
  const prefix = join(base, "Gentle Shell í !%& (x)", "gentle-shell");
  layout = prefixLayout({ home: base, platform: "win32", pins: productionPins, windowsPrefix: prefix });
  await fs.mkdir(join(layout.versions, ID, ".gentle-shell"), { recursive: true });
  await fs.writeFile(join(layout.versions, ID, ENGINE_PATH), ENGINE);
  await fs.mkdir(layout.nodeDir, { recursive: true });
  await fs.copyFile(execPath, layout.node);
  await activateVersion(layout, ID);
  await ensureLauncher(layout);
}, 120_000);

const report = (stdout: string) =>
  JSON.parse(stdout.trim().split(/\r?\n/)[0]!) as { argv: string[]; nodeOptions: string | null; user: string | null; file: string };

describe("the .cmd launcher through cmd.exe, from a prefix whose path holds í, a space, !, %, & and parentheses", () => {
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

  it("with no current, an inherited GS_ID names no version: the exact message, exit 1", async () => {
    await fs.rename(layout.current, `${layout.current}.away`);
    try {
      const r = await runLauncher(layout, ["--version"], { env: { ...env(), GS_ID: ID }, timeoutMs: 60_000 });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(NO_ACTIVE_VERSION);
    } finally {
      await fs.rename(`${layout.current}.away`, layout.current);
    }
  });
});

describe("the other spawn forms the product uses on Windows", () => {
  it("setup's and upgrade step 5's: our node.exe with the version's engine, never the .cmd", async () => {
    const setup = setupCommand(layout, ID);
    const s = await run(setup.command, setup.args, { env: env(), timeoutMs: 60_000 });
    expect(s.code, s.stderr).toBe(0);
    expect(report(s.stdout).argv).toEqual([ENGINE_FLAG, "setup"]);
    const engine = join(layout.versions, ID, ENGINE_PATH);
    const v = await run(layout.node, [...ENGINE_NODE_OPTIONS, engine, ENGINE_FLAG, "--version"], {
      env: { ...env(), GENTLE_SHELL_VERIFY_VERSION: ID },
      timeoutMs: 60_000,
    });
    expect(v.code, v.stderr).toBe(0);
    expect(report(v.stdout).argv).toEqual([ENGINE_FLAG, "--version"]);
  });
});
