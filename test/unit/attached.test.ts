/**
 * The two ways a child of ours starts outside a captured run (issue 48, item
 * 3): runAttached (src/io/process.ts) on the user's terminal, and
 * startDetached (src/io/detached.ts) for a server that outlives us. How each
 * reports an exit, and a start that fails at once or when the system refuses it.
 */
import { tmpdir } from "node:os";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { startDetached } from "../../src/io/detached";
import { runAttached } from "../../src/io/process";

const options = { env: process.env, cwd: tmpdir(), stdout: "inherit" as const };
const missing = join(tmpdir(), "gss-no-such-program", "nothing");

describe("runAttached", () => {
  it("resolves the child's exit code", async () => {
    expect(await runAttached(process.execPath, ["-e", "process.exit(3)"], options)).toEqual({ code: 3, signal: null });
    expect(await runAttached(process.execPath, ["-e", "0"], options)).toEqual({ code: 0, signal: null });
  });

  it("resolves a start the system refuses as an error, never a rejection", async () => {
    const ended = await runAttached(missing, [], options);
    expect(ended).toMatchObject({ error: expect.stringContaining("ENOENT") });
  });

  it("resolves an argument Node refuses before starting anything as an error too", async () => {
    const ended = await runAttached(process.execPath, ["a\0b"], options);
    expect(ended).toMatchObject({ error: expect.stringMatching(/null bytes|ERR_INVALID_ARG/) });
  });
});

describe("startDetached", () => {
  it("resolves with how the server ended", async () => {
    expect(await startDetached(process.execPath, ["-e", "process.exit(5)"], { env: process.env, cwd: tmpdir() })).toBe("exited (code 5)");
  });

  it("names a program that could not be run by its code", async () => {
    expect(await startDetached(missing, [], { env: process.env, cwd: tmpdir() })).toBe("could not be run (ENOENT)");
  });
});
