/**
 * Shared by the windowsProcessCheck tests (failure, sanitize, check): our
 * Node as the real child, a path that does not exist on this host, and
 * `failure()`, which awaits a call that must throw and hands back the
 * WindowsPrerequisiteError with its cause.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { windowsProcessCheck } from "../../../src/io/windows-process/check";
import { type WindowsPrerequisiteError, isWindowsPrerequisiteError, type WindowsProcessFailureCause } from "../../../src/io/windows-process/failure";

export const NODE = process.execPath;
export const WIN = process.platform === "win32";
/** An absolute path that does not exist, on this host. */
export const MISSING = join(tmpdir(), "gss-nonexistent-folder", WIN ? "alice-private-tool.exe" : "alice-private-tool");

/** Runs our Node with an inline script; resolves to the thrown error or the output. */
export function node(script: string, extra: { env?: Record<string, string>; args?: string[] } = {}) {
  return windowsProcessCheck({ command: NODE, args: ["-e", script, ...(extra.args ?? [])], env: extra.env }, { baseEnv: process.env });
}

/** Awaits `p`, which must fail with a WindowsPrerequisiteError; gives back the error and its cause. */
export async function failure(p: Promise<unknown>): Promise<{ error: WindowsPrerequisiteError; cause: WindowsProcessFailureCause }> {
  try {
    await p;
  } catch (error) {
    expect(isWindowsPrerequisiteError(error)).toBe(true);
    const e = error as WindowsPrerequisiteError;
    return { error: e, cause: e.cause };
  }
  throw new Error("expected a failure");
}
