/**
 * The real relaunch adapter with real processes (POSIX): without execve the
 * new launcher runs as a child with this terminal's stdin and stdout, and its
 * exit code is passed on. The Windows form (cmd.exe and a .cmd launcher) is
 * test/windows/relaunch.test.ts.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { requires } from "../support/capabilities";
import { buildRelaunchDriver } from "../support/relaunch-driver";
import { scratchDir } from "../support/scratch";

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
});
