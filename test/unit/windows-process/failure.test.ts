/**
 * windowsProcessCheck's failure (spec: "Windows prerequisite failure
 * diagnostics"), one test per sentence: the one message and its
 * classification, the fields the cause keeps, its sanitized stack, the
 * process-error message, and the limits in UTF-16 code units. Real child
 * processes (our Node) where the rule is about a running process; a fake
 * spawn where it is about how a process is started on Windows.
 */
import { fakeSpawn } from "../../support/fake-spawn";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { windowsProcessCheck, type SpawnLike } from "../../../src/io/windows-process/check";
import { WINDOWS_PROCESS_FAILED, windowsProcessFailure } from "../../../src/io/windows-process/failure";
import { PROCESS_ERROR_FALLBACK, WINDOWS_PROCESS_MAX_CAPTURE, sanitizeStream, truncateUnits } from "../../../src/io/windows-process/sanitize";
import { MISSING, NODE, failure, node } from "./helpers";

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
      failure(windowsProcessCheck({ command: MISSING }, { baseEnv: process.env })),
      failure(windowsProcessCheck({ command: "C:\\tools\\x.cmd" }, { baseEnv: process.env })),
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
    const { cause } = await failure(windowsProcessCheck({ command: MISSING, args: ["--secret-arg"] }, { baseEnv: process.env }));
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
    const spawnFailure = await failure(windowsProcessCheck({ command: MISSING }, { baseEnv: process.env }));
    expect(spawnFailure.cause.stack).toContain("processError.code: ENOENT");
    expect(spawnFailure.cause.stack).toMatch(/processError\.errno: -?\d+/);
  });

  it("no callsite, command, argument, raw spawn text or environment value anywhere in the error", async () => {
    const marker = "zqx-unique-env-value";
    const { error, cause } = await failure(
      windowsProcessCheck({ command: MISSING, args: ["argv-unique-value"], env: { GSS_PROBE: marker } }, { baseEnv: process.env }),
    );
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
    const { cause } = await failure(windowsProcessCheck({ command: "C:\\Users\\alice\\x.exe" }, { baseEnv: process.env, spawn, platform: "win32" }));
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
