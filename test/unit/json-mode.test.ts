/**
 * --json's one document (src/cli/json.ts): whatever the command writes on
 * stdout goes to stderr, the document alone reaches stdout, on success, on a
 * reported failure and on a thrown one; and it fits the schema.
 */
import { homedir } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EXIT, UserError } from "../../src/core/errors";
import { documentError, jsonCommand, runWithJson } from "../../src/cli/json";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { streamHost } from "../support/host";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("runWithJson", () => {
  it("sends the command's lines to stderr and writes only the document on stdout", async () => {
    const { host, stdout, stderr } = streamHost();
    await runWithJson("status", host, async (jsonHost) => {
      // The host the command was given before --json was read is in the document's mode too.
      host.out("a plan line");
      jsonHost.out("another");
      expect(host.stdoutForChild()).toBe(2);
      expect(jsonHost.stdoutForChild()).toBe(2);
      expect(jsonHost.json).toBe(true);
      expect(jsonHost.withMode({ quiet: true }).document).toBe(jsonHost.document);
      return EXIT.ok;
    });
    expect(stderr()).toBe("a plan line\nanother\n");
    expect(onlyDocument(stdout())).toEqual({ schema: 1, command: "status", ok: true, exitCode: 0, error: null });
    expect(host.stdoutForChild()).toBe("inherit");
    expect(host.document).toBeNull();
  });

  it("reports a failure the command named, with its exit code, the home as ~ and secrets masked", async () => {
    // The product reads the home from HOME on POSIX and USERPROFILE on Windows (which normally has no HOME): both name it here.
    const home = homedir();
    vi.stubEnv("HOME", home);
    vi.stubEnv("USERPROFILE", home);
    const { host, stdout } = streamHost();
    const code = await runWithJson("install", host, async (jsonHost) => {
      documentError(jsonHost, `the runtime step failed: ${home}/x from http://u:pw@127.0.0.1:9/`);
      return EXIT.failure;
    });
    expect(code).toBe(EXIT.failure);
    const doc = onlyDocument(stdout());
    expect(doc).toEqual({ schema: 1, command: "install", ok: false, exitCode: 1, error: "the runtime step failed: ~/x from http://***@127.0.0.1:9/" });
    expect(schemaErrors(doc)).toEqual([]);
  });

  it("still writes the document when the command throws, then lets the error go on", async () => {
    const thrown = new UserError("--release takes an exact Gentle Shell version", EXIT.usage);
    const { host, stdout } = streamHost();
    await expect(runWithJson("install", host, async () => Promise.reject(thrown))).rejects.toBe(thrown);
    expect(onlyDocument(stdout())).toMatchObject({ ok: false, exitCode: 2, error: "--release takes an exact Gentle Shell version" });
  });
});

describe("jsonCommand", () => {
  it("names install, bundle and status under --json, never help or another command", () => {
    expect(jsonCommand(["install", "--json"])).toBe("install");
    expect(jsonCommand(["bundle", "--out", "x", "--json"])).toBe("bundle");
    expect(jsonCommand(["status", "--json"])).toBe("status");
    expect(jsonCommand(["install", "--json", "--help"])).toBeNull();
    expect(jsonCommand(["verify", "--json"])).toBeNull();
    expect(jsonCommand(["install", "--", "--json"])).toBeNull();
    expect(jsonCommand(["install"])).toBeNull();
  });
});
