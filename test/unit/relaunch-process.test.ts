/**
 * The real relaunch adapter with real processes (POSIX): without execve the
 * new launcher runs as a child with this terminal's stdin and stdout, and its
 * exit code is passed on; with the pinned Node's execve it replaces the
 * process, and a launcher execve would refuse is reported, where that Node
 * would abort. The Windows form (cmd.exe and a .cmd launcher) is
 * test/windows/relaunch.test.ts.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { requires } from "../support/capabilities";
import { buildRelaunchDriver } from "../support/relaunch-driver";
import { scratchDir } from "../support/scratch";
import { pinnedNode } from "../support/toolchain";

describe("the relaunch adapter with real processes", () => {
  it("runs the launcher with inherited stdio, the original arguments and the hand-over mark, and exits with its code", (ctx) => {
    // The POSIX launcher is an sh script.
    requires(ctx, "posix-shell");
    const dir = scratchDir("gss-relaunch-");
    const driver = buildRelaunchDriver(dir);
    const bin = join(dir, "a prefix & 100% (x)", "bin");
    mkdirSync(bin, { recursive: true });
    const launcher = join(bin, "gentle-shell");
    writeFileSync(launcher, '#!/bin/sh\nread line\necho "got $line; args $*; handoff $GENTLE_SHELL_STARTUP_HANDOFF"\necho "to stderr" >&2\nexit 7\n');
    chmodSync(launcher, 0o755);
    const r = spawnSync(process.execPath, [driver, "linux", launcher, "--continue"], { input: "typed\n", encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(r.stderr).toBe("to stderr\n");
    expect(r.stdout).toBe("got typed; args --continue; handoff 1\n");
    expect(r.status).toBe(7);
  });

  it("reports a launcher that cannot start", () => {
    const dir = scratchDir("gss-relaunch-");
    const driver = buildRelaunchDriver(dir);
    const r = spawnSync(process.execPath, [driver, "linux", join(dir, "missing")], { encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(r.status).toBe(99);
    expect(r.stderr).toMatch(/^reopening failed: spawn .*missing ENOENT\n$/);
  });

  it("with the pinned Node's execve: the launcher replaces the process, and one execve would refuse is reported, not an abort", async (ctx) => {
    requires(ctx, "posix-shell");
    const node = await pinnedNode();
    const dir = scratchDir("gss-relaunch-");
    const driver = buildRelaunchDriver(dir);
    const drive = (launcher: string) =>
      spawnSync(node, [driver, "linux", launcher, "--continue"], { encoding: "utf8", env: { PATH: process.env.PATH, GSS_DRIVER_EXEC: "1" } });
    const launcher = join(dir, "gentle-shell");
    writeFileSync(launcher, '#!/bin/sh\necho "pid $$ args $*; handoff $GENTLE_SHELL_STARTUP_HANDOFF"\nexit 7\n', { mode: 0o755 });
    // The same process: execve replaced it (a spawned launcher would have another pid).
    const ran = drive(launcher);
    expect(ran.status).toBe(7);
    expect(ran.stdout).toBe(`pid ${ran.pid} args --continue; handoff 1\n`);
    // Not executable (root too: no x bit at all), and a script whose interpreter is not there.
    chmodSync(launcher, 0o644);
    const notExecutable = drive(launcher);
    expect(notExecutable.stderr).toBe(`reopening failed: ${launcher} cannot be started (EACCES)\n`);
    expect(notExecutable.status).toBe(99);
    const noInterpreter = join(dir, "no-interpreter");
    writeFileSync(noInterpreter, "#!/nonexistent/sh\nexit 0\n", { mode: 0o755 });
    const missing = drive(noInterpreter);
    expect(missing.stderr).toBe(`reopening failed: ${noInterpreter}'s interpreter /nonexistent/sh cannot be started (ENOENT)\n`);
    expect(missing.status).toBe(99);
    const gone = drive(join(dir, "missing"));
    expect(gone.stderr).toBe(`reopening failed: ${join(dir, "missing")} cannot be started (ENOENT)\n`);
    expect(gone.status).toBe(99);
  });
});
