/**
 * How windowsProcessCheck starts and stops a process (spec: "Windows
 * prerequisite failure diagnostics"): nothing printed, CMD/BAT and
 * non-absolute commands refused, a neutral working folder with shell=false,
 * the 15-second SIGKILL and the 1 MiB capture. Real child processes (our
 * Node) where the rule is about a running process; a fake spawn where it is
 * about how a process is started on Windows or about time.
 */
import { exitWith, fakeSpawn } from "../../support/fake-spawn";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BATCH_REJECTED, COMMAND_NOT_ABSOLUTE, OUTPUT_LIMIT, neutralCwd, windowsProcessCheck } from "../../../src/io/windows-process/check";
import { WINDOWS_PROCESS_MAX_CAPTURE } from "../../../src/io/windows-process/sanitize";
import { MISSING, NODE, WIN, failure, node } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("nothing prints automatically", () => {
  it("a failing child's output and the failure reach neither our stdout nor stderr", async () => {
    const out = vi.spyOn(process.stdout, "write");
    const err = vi.spyOn(process.stderr, "write");
    const log = vi.spyOn(console, "log");
    const error = vi.spyOn(console, "error");
    const warn = vi.spyOn(console, "warn");
    await failure(node("console.log('to stdout'); console.error('to stderr'); process.exit(1)"));
    await failure(windowsProcessCheck({ command: MISSING }, { baseEnv: process.env }));
    for (const spy of [out, err, log, error, warn]) expect(spy).not.toHaveBeenCalled();
  });
});

describe("CMD/BAT rejection", () => {
  it.each(["C:\\tools\\setup.cmd", "C:\\tools\\SETUP.BAT", "C:\\tools\\a.cmd.", "C:\\tools\\a.bat  ", "C:\\tools\\a.Cmd. .", "/opt/x.cmd"])(
    "%s is refused before anything starts",
    async (command) => {
      const fake = fakeSpawn();
      const { cause } = await failure(windowsProcessCheck({ command }, { baseEnv: process.env, spawn: fake.spawn, platform: "win32" }));
      expect(fake.calls).toHaveLength(0);
      expect(cause.processError).toEqual({ name: "Error", code: BATCH_REJECTED, message: BATCH_REJECTED });
    },
  );

  it("a real executable .cmd file is never run", async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), "gss-wp-"));
    const flag = join(dir, "ran");
    const script = join(dir, "evil.cmd");
    await fs.writeFile(script, `#!/bin/sh\ntouch '${flag}'\n`, { mode: 0o755 });
    await failure(windowsProcessCheck({ command: script }, { baseEnv: process.env }));
    await expect(fs.access(flag)).rejects.toThrow();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it.each(["icacls", "icacls.exe", "tools\\x.exe", "\\Windows\\x.exe", "\\\\server\\share\\x.exe"])(
    "a bare, relative or UNC name %s is refused on Windows",
    async (command) => {
      const fake = fakeSpawn();
      const { cause } = await failure(windowsProcessCheck({ command }, { baseEnv: process.env, spawn: fake.spawn, platform: "win32" }));
      expect(fake.calls).toHaveLength(0);
      expect(cause.processError!.code).toBe(COMMAND_NOT_ABSOLUTE);
    },
  );

  it(".exe and .com paths are allowed", async () => {
    for (const command of ["C:\\Windows\\System32\\icacls.exe", "C:\\Windows\\System32\\more.com", "C:\\Windows\\System32\\cmd.exe.bak"]) {
      const fake = fakeSpawn(exitWith(0));
      await windowsProcessCheck({ command }, { spawn: fake.spawn, platform: "win32", baseEnv: {} });
      expect(fake.calls).toHaveLength(1);
    }
  });
});

describe("neutral cwd, shell=false", () => {
  it("Windows: started with shell=false, no window, stdin ignored, the argument vector as given, in %SystemRoot%\\System32", async () => {
    const fake = fakeSpawn(exitWith(0, "ok"));
    const args = ["/grant", "a b", "x&y", "%PATH%"];
    const out = await windowsProcessCheck(
      { command: "C:\\Windows\\System32\\icacls.exe", args, env: { GSS_DATA: "C:\\Users\\a b" } },
      { spawn: fake.spawn, platform: "win32", baseEnv: { SYSTEMROOT: "C:\\Windows\\", Path: "C:\\x" } },
    );
    expect(out.stdout).toBe("ok");
    const [call] = fake.calls;
    expect(call.command).toBe("C:\\Windows\\System32\\icacls.exe");
    expect(call.args).toEqual(args);
    expect(call.options).toMatchObject({
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
      windowsVerbatimArguments: false,
      cwd: "C:\\Windows\\System32",
    });
    expect(call.options.env).toEqual({ SYSTEMROOT: "C:\\Windows\\", Path: "C:\\x", GSS_DATA: "C:\\Users\\a b" });
  });

  it("Windows: without a usable SystemRoot, the root of the executable's drive", async () => {
    for (const baseEnv of [{}, { SystemRoot: "Windows" }, { SystemRoot: "\\\\server\\win" }]) {
      const fake = fakeSpawn(exitWith(0));
      await windowsProcessCheck({ command: "D:\\tools\\x.exe" }, { spawn: fake.spawn, platform: "win32", baseEnv });
      expect(fake.calls[0].options.cwd).toBe("D:\\");
    }
  });

  it("Windows: data variables replace an inherited one of any case", async () => {
    const fake = fakeSpawn(exitWith(0));
    await windowsProcessCheck({ command: "C:\\x.exe", env: { GSS_PATH: "new" } }, { spawn: fake.spawn, platform: "win32", baseEnv: { gss_path: "old" } });
    expect(fake.calls[0].options.env).toEqual({ GSS_PATH: "new" });
  });

  it("real child: not our working folder, shell metacharacters stay literal, env data arrives, stdin is closed", async () => {
    const probe =
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify({cwd:process.cwd(),argv:process.argv.slice(1),data:process.env.GSS_DATA,stdin:s})))";
    const args = ["$(touch gss-pwned)", "a;b", "|", "&&", "`x`", "'q'", '"dq"', "*", "%PATH%", "a b"];
    const out = await node(probe, { args, env: { GSS_DATA: "C:\\Users\\a b;&|" } });
    const seen = JSON.parse(out.stdout);
    expect(seen.cwd.toLowerCase()).toBe(neutralCwd(process.platform, process.env, NODE).toLowerCase());
    expect(seen.cwd).not.toBe(process.cwd());
    expect(seen.argv).toEqual(args);
    expect(seen.data).toBe("C:\\Users\\a b;&|");
    expect(seen.stdin).toBe("");
  });
});

describe("15-second SIGKILL; elapsed time alone does not establish timeout", () => {
  it("fake clock: nothing at 14.999 s, SIGKILL at 15 s, and timedOut", async () => {
    vi.useFakeTimers();
    const fake = fakeSpawn();
    const pending = failure(windowsProcessCheck({ command: "C:\\x.exe" }, { spawn: fake.spawn, platform: "win32", baseEnv: {} }));
    await vi.advanceTimersByTimeAsync(14_999);
    expect(fake.calls[0].child.kills).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.calls[0].child.kills).toEqual(["SIGKILL"]);
    await vi.advanceTimersByTimeAsync(10);
    const { cause } = await pending;
    expect(cause.timedOut).toBe(true);
    expect(cause.signal).toBe("SIGKILL");
    expect(cause.message).toContain("15-second");
  });

  it("fake clock: a child that ends by itself at 14.9 s is not a timeout, however long it took", async () => {
    vi.useFakeTimers();
    const fake = fakeSpawn((child) =>
      setTimeout(() => {
        child.emit("exit", 1, null);
        child.emit("close", 1, null);
      }, 14_900),
    );
    const pending = failure(windowsProcessCheck({ command: "C:\\x.exe" }, { spawn: fake.spawn, platform: "win32", baseEnv: {} }));
    await vi.advanceTimersByTimeAsync(20_000);
    const { cause } = await pending;
    expect(fake.calls[0].child.kills).toEqual([]);
    expect(cause.timedOut).toBe(false);
    expect(cause.status).toBe(1);
  });

  it("real child: a SIGKILL that is not ours is not a timeout", async () => {
    const { cause } = await failure(node("setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300)"));
    // Windows reports a self-terminated process as exit status 1, POSIX as the signal.
    if (WIN) expect(cause.status).toBe(1);
    else expect(cause.signal).toBe("SIGKILL");
    expect(cause.timedOut).toBe(false);
  });

  it("real child: one that ignores SIGTERM and never ends is killed with SIGKILL after 15 seconds", async () => {
    const started = Date.now();
    const { cause } = await failure(node("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"));
    const elapsed = Date.now() - started;
    expect(cause.timedOut).toBe(true);
    expect(cause.signal).toBe("SIGKILL");
    expect(elapsed).toBeGreaterThanOrEqual(14_900);
    expect(elapsed).toBeLessThan(20_000);
  }, 30_000);
});

describe("1 MiB capture", () => {
  it("exactly 1 MiB on each stream is captured whole", async () => {
    const out = await node(
      `process.stdout.write(Buffer.alloc(${WINDOWS_PROCESS_MAX_CAPTURE}, 97)); process.stderr.write(Buffer.alloc(${WINDOWS_PROCESS_MAX_CAPTURE}, 98))`,
    );
    expect(out.stdout.length).toBe(WINDOWS_PROCESS_MAX_CAPTURE);
    expect(out.stderr.length).toBe(WINDOWS_PROCESS_MAX_CAPTURE);
  });

  it("one byte more kills the child and fails", async () => {
    const { cause } = await failure(node(`process.stdout.write(Buffer.alloc(${WINDOWS_PROCESS_MAX_CAPTURE + 1}, 97))`));
    expect(cause.outputLimitExceeded).toBe(true);
    expect(cause.processError!.code).toBe(OUTPUT_LIMIT);
    expect(cause.stdout.length).toBeLessThanOrEqual(1024);
  });

  it("endless output is stopped at once, not after 15 seconds", async () => {
    const started = Date.now();
    const { cause } = await failure(node("const b = Buffer.alloc(65536, 120); (function w() { process.stderr.write(b, w); })()"));
    expect(cause.outputLimitExceeded).toBe(true);
    expect(cause.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
