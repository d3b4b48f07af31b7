/**
 * windowsProcessCheck (spec: "Windows prerequisite failure diagnostics"), one
 * test per sentence. Real child processes (our Node) where the rule is about a
 * running process; a fake spawn where the rule is about how it is started on
 * Windows or about time.
 */
import { exitWith, fakeSpawn } from "../../support/fake-spawn";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BATCH_REJECTED, COMMAND_NOT_ABSOLUTE, OUTPUT_LIMIT, neutralCwd, windowsProcessCheck, type SpawnLike } from "../../../src/io/windows-process/check";
import {
  WINDOWS_PROCESS_FAILED,
  type WindowsPrerequisiteError,
  isWindowsPrerequisiteError,
  windowsProcessFailure,
  type WindowsProcessFailureCause,
} from "../../../src/io/windows-process/failure";
import {
  FIELD_SUPPRESSED,
  LINE_SUPPRESSED,
  PROCESS_ERROR_FALLBACK,
  WINDOWS_PROCESS_MAX_CAPTURE,
  sanitizeStream,
  truncateUnits,
} from "../../../src/io/windows-process/sanitize";

const NODE = process.execPath;
const WIN = process.platform === "win32";
/** An absolute path that does not exist, on this host. */
const MISSING = join(tmpdir(), "gss-nonexistent-folder", WIN ? "alice-private-tool.exe" : "alice-private-tool");

/** Runs our Node with an inline script; resolves to the thrown error or the output. */
function node(script: string, extra: { env?: Record<string, string>; args?: string[] } = {}) {
  return windowsProcessCheck({ command: NODE, args: ["-e", script, ...(extra.args ?? [])], env: extra.env });
}

async function failure(p: Promise<unknown>): Promise<{ error: WindowsPrerequisiteError; cause: WindowsProcessFailureCause }> {
  try {
    await p;
  } catch (error) {
    expect(isWindowsPrerequisiteError(error)).toBe(true);
    const e = error as WindowsPrerequisiteError;
    return { error: e, cause: e.cause };
  }
  throw new Error("expected a failure");
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("windowsProcessCheck: exactly `Windows prerequisite process failed` (process-failed classification)", () => {
  it("a successful process gives back its full output", async () => {
    const out = await node("process.stdout.write('C:\\\\Users\\\\alice S-1-5-18\\n'); process.stderr.write('warn')");
    expect(out).toEqual({ stdout: "C:\\Users\\alice S-1-5-18\n", stderr: "warn" });
  });

  it("a non-zero exit throws exactly the message, classified process-failed, with a standard Error cause", async () => {
    const { error, cause } = await failure(node("process.exit(3)"));
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(WINDOWS_PROCESS_FAILED);
    expect(error.message).toBe("Windows prerequisite process failed");
    expect(error.classification).toBe("process-failed");
    expect(cause).toBeInstanceOf(Error);
    expect(cause.status).toBe(3);
    expect(cause.signal).toBeNull();
    expect(cause.timedOut).toBe(false);
    expect(cause.processError).toBeUndefined();
  });

  it("every kind of failure throws the same message: signal, spawn error, refusal, output limit", async () => {
    const all = await Promise.all([
      failure(node("process.kill(process.pid, 'SIGKILL')")),
      failure(windowsProcessCheck({ command: MISSING })),
      failure(windowsProcessCheck({ command: "C:\\tools\\x.cmd" })),
      failure(node(`process.stdout.write(Buffer.alloc(${WINDOWS_PROCESS_MAX_CAPTURE + 1}, 97))`)),
    ]);
    for (const { error } of all) expect(error.message).toBe(WINDOWS_PROCESS_FAILED);
  });
});

describe("the cause preserves status, signal and selected process-error fields plus bounded stdout/stderr", () => {
  it("status and both streams", async () => {
    const { cause } = await failure(node("process.stdout.write('out line\\n'); process.stderr.write('Access is denied.\\n'); process.exit(5)"));
    expect(cause.status).toBe(5);
    expect(cause.stdout).toBe("out line");
    expect(cause.stderr).toBe("Access is denied.");
  });

  it("signal", async () => {
    const fake = fakeSpawn((child) =>
      setTimeout(() => {
        child.emit("exit", null, "SIGTERM");
        child.emit("close", null, "SIGTERM");
      }, 0),
    );
    const { cause } = await failure(windowsProcessCheck({ command: "C:\\x.exe" }, { spawn: fake.spawn, platform: "win32", baseEnv: {} }));
    expect(cause.status).toBeNull();
    expect(cause.signal).toBe("SIGTERM");
    expect(cause.stack).toContain("signal: SIGTERM");
  });

  it("a spawn error keeps name, code and numeric errno only", async () => {
    const { cause } = await failure(windowsProcessCheck({ command: MISSING, args: ["--secret-arg"] }));
    expect(cause.processError).toEqual({ name: "Error", code: "ENOENT", errno: expect.any(Number), message: "ENOENT" });
    for (const key of ["syscall", "path", "spawnargs", "cmd", "args", "env", "command"]) {
      expect(Object.keys(cause)).not.toContain(key);
      expect(Object.keys(cause.processError!)).not.toContain(key);
    }
  });
});

describe("a sanitized cause.stack carries these fields, without callsites, raw spawn errors, commands, argv or environment", () => {
  it("carries every field", async () => {
    const { cause } = await failure(node("process.stdout.write('o1'); process.stderr.write('e1'); process.exit(7)"));
    expect(cause.stack).toContain("status: 7");
    expect(cause.stack).toContain("signal: null");
    expect(cause.stack).toContain("timedOut: false");
    expect(cause.stack).toContain('stdout: "o1"');
    expect(cause.stack).toContain('stderr: "e1"');
    const spawnFailure = await failure(windowsProcessCheck({ command: MISSING }));
    expect(spawnFailure.cause.stack).toContain("processError.code: ENOENT");
    expect(spawnFailure.cause.stack).toMatch(/processError\.errno: -?\d+/);
  });

  it("no callsite, command, argument, raw spawn text or environment value anywhere in the error", async () => {
    const marker = "zqx-unique-env-value";
    const { error, cause } = await failure(windowsProcessCheck({ command: MISSING, args: ["argv-unique-value"], env: { GSS_PROBE: marker } }));
    const exit = await failure(node("process.exit(1)", { env: { GSS_PROBE: marker }, args: ["argv-unique-value"] }));
    for (const c of [cause, exit.cause]) {
      expect(c.stack).not.toMatch(/\n\s+at /);
      expect(c.stack).not.toContain("windows-process");
      expect(c.stack).not.toContain("node:");
    }
    const shown = inspect(error, { depth: 10, showHidden: true }) + inspect(exit.error.cause, { depth: 10, showHidden: true }) + JSON.stringify(cause);
    for (const secret of ["alice-private-tool", "gss-nonexistent-folder", "argv-unique-value", marker, "spawn", NODE]) expect(shown).not.toContain(secret);
  });
});

describe("process-error messages use only a sanitized native code or a fixed fallback", () => {
  it("raw spawn text naming a private bare executable never appears", () => {
    const raw = Object.assign(new Error("spawn alice-secret-tool.exe EINVAL"), {
      code: "EINVAL",
      errno: -4071,
      syscall: "spawn alice-secret-tool.exe",
      path: "alice-secret-tool.exe",
      spawnargs: ["x"],
    });
    const { cause } = windowsProcessFailure({ error: raw });
    expect(cause.processError).toEqual({ name: "Error", code: "EINVAL", errno: -4071, message: "EINVAL" });
    expect(cause.message).not.toContain("alice");
    expect(cause.stack).not.toContain("alice");
  });

  it("a code that is not a native code token gives the fixed fallback", () => {
    for (const code of ["spawn alice.exe", "enoent", "", 42, undefined]) {
      const { cause } = windowsProcessFailure({ error: { name: "Error", code, message: "spawn alice.exe ENOENT" } });
      expect(cause.processError!.message).toBe(PROCESS_ERROR_FALLBACK);
      expect(cause.processError!.code).toBeUndefined();
    }
  });

  it("a synchronous spawn throw is sanitized the same way", async () => {
    const spawn: SpawnLike = () => {
      throw Object.assign(new TypeError("The argument 'file' ... Received 'C:\\\\Users\\\\alice\\\\x.exe'"), { code: "ERR_INVALID_ARG_VALUE" });
    };
    const { cause } = await failure(windowsProcessCheck({ command: "C:\\Users\\alice\\x.exe" }, { spawn, platform: "win32" }));
    expect(cause.processError).toEqual({ name: "TypeError", code: "ERR_INVALID_ARG_VALUE", message: "ERR_INVALID_ARG_VALUE" });
    expect(inspect(cause, { showHidden: true })).not.toContain("alice");
  });
});

describe("limits in UTF-16 code units; numeric status and errno stay numeric", () => {
  it("streams 1024 each", () => {
    const { cause } = windowsProcessFailure({ status: 1, stdout: "a".repeat(5000), stderr: "b ".repeat(3000) });
    expect(cause.stdout.length).toBe(1024);
    expect(cause.stderr.length).toBe(1024);
    expect(cause.stdout.endsWith("…")).toBe(true);
  });

  it("a cut never leaves half a surrogate pair", () => {
    const text = "x" + "😀".repeat(1000);
    const cut = sanitizeStream(text);
    expect(cut.length).toBeLessThanOrEqual(1024);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(truncateUnits("ab😀", 3)).toBe("ab…");
  });

  it("name, code and errno text 64, signal 32, message 256", () => {
    const { cause } = windowsProcessFailure({
      signal: "SIG" + "X".repeat(100),
      error: { name: "N".repeat(100), code: "C".repeat(100), errno: "E".repeat(100) },
    });
    expect(cause.processError!.name.length).toBe(64);
    expect(cause.processError!.code!.length).toBe(64);
    expect(String(cause.processError!.errno).length).toBe(64);
    expect(cause.processError!.message.length).toBeLessThanOrEqual(256);
    expect(cause.signal!.length).toBe(32);
    expect(cause.message.length).toBeLessThanOrEqual(256);
  });

  it("numeric status and errno are numbers", () => {
    const { cause } = windowsProcessFailure({ status: 1326, error: { code: "EPERM", errno: -4048 } });
    expect(cause.status).toBe(1326);
    expect(cause.processError!.errno).toBe(-4048);
    expect(typeof cause.processError!.errno).toBe("number");
  });

  it("cause stack 8192, even with every field at its worst", () => {
    const { cause } = windowsProcessFailure({
      status: 1,
      signal: "SIG" + "X".repeat(100),
      error: { name: "N".repeat(100), code: "C".repeat(100), errno: "E".repeat(100) },
      stdout: '"'.repeat(10_000),
      stderr: '"'.repeat(10_000),
    });
    expect(cause.stack!.length).toBeLessThanOrEqual(8192);
    expect(truncateUnits("s".repeat(9000), 8192).length).toBe(8192);
  });
});

describe("path/SID, encoded ACL/opaque and control-bearing lines are suppressed", () => {
  const suppressed: [string, string][] = [
    ["drive path", "could not open C:\\Users\\alice\\AppData"],
    ["drive path, forward slashes", "see c:/users/alice"],
    ["UNC path", "\\\\server\\share\\x"],
    ["account", "granted to CONTOSO\\alice"],
    ["POSIX path", "cannot read /home/alice/.ssh"],
    ["home path", "see ~/notes"],
    ["relative path", "wrote ./out/file"],
    ["SID", "owner S-1-5-21-3623811015-3361044348-30300820-1013"],
    ["SDDL", "O:BAG:SYD:PAI(A;OICI;FA;;;SY)"],
    ["SDDL ACE", "(A;OICI;FA;;;BA)"],
    ["icacls rights", "Everyone:(OI)(CI)(F)"],
    ["icacls rights list", "Users:(RX,W)"],
    ["base64", "blob AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA"],
    ["long hex", "id 0123456789abcdef0123"],
    ["long hex, letters first", "id abcdef0123456789abcd"],
    ["GUID", "{8a6f2e4c-1b3d-4e5f-9a0b-1c2d3e4f5a6b}"],
    ["escape", "red \u001b[31m text"],
    ["NUL", "a\u0000b"],
    ["bare carriage return", "50%\rdone"],
    ["bidi override", "file\u202Etxt.exe"],
    ["zero-width", "ad\u200Bmin"],
    ["tab", "a\tb"],
  ];
  it.each(suppressed)("%s", (_what, line) => {
    expect(sanitizeStream(`before\n${line}\nafter`)).toBe(`before\n${LINE_SUPPRESSED}\nafter`);
  });

  const kept = [
    "Access is denied.",
    "Successfully processed 1 files; Failed processing 0 files",
    "System.UnauthorizedAccessException: Attempted to perform an unauthorized operation.",
    "HRESULT 0x80070005",
    "Registry key not found",
    "and/or",
    "CategoryInfo          : PermissionDenied: (:) [Get-Acl], UnauthorizedAccessException",
  ];
  it.each(kept)("kept: %s", (line) => {
    expect(sanitizeStream(line)).toBe(line);
  });

  it("consecutive suppressed lines become one placeholder; CRLF is a line end, not a control", () => {
    expect(sanitizeStream("one\r\nC:\\a\r\nC:\\b\r\ntwo\r\n")).toBe(`one\n${LINE_SUPPRESSED}\ntwo`);
  });

  it("applies to the real captured streams of a failure", async () => {
    const { cause } = await failure(node("console.log('first'); console.log('C:\\\\Users\\\\alice'); console.error('S-1-5-18'); process.exit(2)"));
    expect(cause.stdout).toBe(`first\n${LINE_SUPPRESSED}`);
    expect(cause.stderr).toBe(LINE_SUPPRESSED);
  });
});

describe("credential markers suppress the entire field including continuation lines", () => {
  const markers = [
    "GITHUB_TOKEN=ghp_x",
    "API_KEY: abc",
    "OPENAI_API_KEY",
    "NPM_AUTH x",
    "GH_PAT is set",
    "SSH_KEY_FILE",
    "token expired",
    "Password: hunter2",
    "client secret",
    "Authorization: Bearer abc",
    "credential manager",
    "private key",
    "api key",
    "cookie",
    "//registry/:_auth=abc",
  ];
  it.each(markers)("%s", (marker) => {
    const { cause } = windowsProcessFailure({ status: 1, stdout: "plain", stderr: `first line\n${marker}\n  continuation value abc123\nlast` });
    expect(cause.stderr).toBe(FIELD_SUPPRESSED);
    expect(cause.stdout).toBe("plain");
    expect(cause.stack).not.toContain("continuation");
    expect(cause.stack).not.toContain("first line");
  });

  it("a marker far beyond the 1024 shown units still suppresses the field", () => {
    expect(sanitizeStream("x".repeat(3000) + "\nGITHUB_TOKEN=1")).toBe(FIELD_SUPPRESSED);
    expect(sanitizeStream("secret1 ".repeat(1) + "\n" + "y".repeat(5000))).toBe(FIELD_SUPPRESSED);
  });

  it("words that only contain 'key' are not markers", () => {
    expect(sanitizeStream("keyboard layout; monkey; turnkey")).toBe("keyboard layout; monkey; turnkey");
  });

  it("a 1 MiB single line is filtered quickly", () => {
    const started = Date.now();
    sanitizeStream("a_".repeat(512 * 1024));
    sanitizeStream("A".repeat(1024 * 1024));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("nothing prints automatically", () => {
  it("a failing child's output and the failure reach neither our stdout nor stderr", async () => {
    const out = vi.spyOn(process.stdout, "write");
    const err = vi.spyOn(process.stderr, "write");
    const log = vi.spyOn(console, "log");
    const error = vi.spyOn(console, "error");
    const warn = vi.spyOn(console, "warn");
    await failure(node("console.log('to stdout'); console.error('to stderr'); process.exit(1)"));
    await failure(windowsProcessCheck({ command: MISSING }));
    for (const spy of [out, err, log, error, warn]) expect(spy).not.toHaveBeenCalled();
  });
});

describe("CMD/BAT rejection", () => {
  it.each(["C:\\tools\\setup.cmd", "C:\\tools\\SETUP.BAT", "C:\\tools\\a.cmd.", "C:\\tools\\a.bat  ", "C:\\tools\\a.Cmd. .", "/opt/x.cmd"])(
    "%s is refused before anything starts",
    async (command) => {
      const fake = fakeSpawn();
      const { cause } = await failure(windowsProcessCheck({ command }, { spawn: fake.spawn, platform: "win32" }));
      expect(fake.calls).toHaveLength(0);
      expect(cause.processError).toEqual({ name: "Error", code: BATCH_REJECTED, message: BATCH_REJECTED });
    },
  );

  it("a real executable .cmd file is never run", async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), "gss-wp-"));
    const flag = join(dir, "ran");
    const script = join(dir, "evil.cmd");
    await fs.writeFile(script, `#!/bin/sh\ntouch '${flag}'\n`, { mode: 0o755 });
    await failure(windowsProcessCheck({ command: script }));
    await expect(fs.access(flag)).rejects.toThrow();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it.each(["icacls", "icacls.exe", "tools\\x.exe", "\\Windows\\x.exe", "\\\\server\\share\\x.exe"])(
    "a bare, relative or UNC name %s is refused on Windows",
    async (command) => {
      const fake = fakeSpawn();
      const { cause } = await failure(windowsProcessCheck({ command }, { spawn: fake.spawn, platform: "win32" }));
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
