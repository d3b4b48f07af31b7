/**
 * The gentle-engram companion (src/engine/companion/): which settings get an
 * install, which the 0.4.2 migration, which are never rewritten; the policy
 * check of the installed package.json; and the launch's order of work, with
 * a recording stand-in for Pi's package manager (the real one is exercised
 * in test/e2e/companion.test.ts).
 */
import { describe, expect, it } from "vitest";
import { companionAction, localSources, parseSource, startupPolicyCheck } from "../../src/engine/companion/decision";
import { ensureCompanion, type CompanionIo, type CompanionRecord, type Done } from "../../src/engine/companion/ensure";
import { lastLine } from "../../src/engine/companion/pi-io";

const settings = (packages: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ ...extra, packages }, null, 2);
const ours = (text: string | null, localNames = {}) => companionAction({ notOurs: null, settings: text, localNames });

describe("parseSource", () => {
  it("reads npm, git and local sources as Pi does", () => {
    expect(parseSource("npm:gentle-engram")).toMatchObject({ kind: "npm", name: "gentle-engram", version: null });
    expect(parseSource("npm:gentle-engram@0.4.2")).toMatchObject({ kind: "npm", name: "gentle-engram", version: "0.4.2" });
    expect(parseSource({ source: "npm:@scope/pkg@1.2.3", skills: [] })).toMatchObject({ kind: "npm", name: "@scope/pkg", version: "1.2.3" });
    expect(parseSource("npm:@scope/pkg")).toMatchObject({ kind: "npm", name: "@scope/pkg", version: null });
    expect(parseSource("git:github.com/someone/gentle-engram@v1")).toMatchObject({ kind: "git", repo: "gentle-engram" });
    expect(parseSource("git:git@github.com:someone/gentle-engram")).toMatchObject({ kind: "git", repo: "gentle-engram" });
    expect(parseSource("https://github.com/someone/gentle-engram.git")).toMatchObject({ kind: "git", repo: "gentle-engram" });
    expect(parseSource("../work/gentle-engram")).toMatchObject({ kind: "local" });
    expect(parseSource(42)).toBeNull();
    expect(parseSource({ extensions: [] })).toBeNull();
  });
});

describe("companionAction", () => {
  it("installs when no companion is selected", () => {
    expect(ours(null)).toEqual({ action: "install" });
    expect(ours("")).toEqual({ action: "install" });
    expect(ours(JSON.stringify({ theme: "dark" }))).toEqual({ action: "install" });
    expect(ours(settings(["npm:pi-foo@1.2.3", "npm:gentle-engram-extra"]))).toEqual({ action: "install" });
  });

  it("migrates Shell's old npm:gentle-engram@0.4.2 registration, also an object entry", () => {
    expect(ours(settings(["npm:pi-foo@1.2.3", "npm:gentle-engram@0.4.2"]))).toEqual({ action: "migrate", from: "npm:gentle-engram@0.4.2" });
    expect(ours(settings([{ source: "npm:gentle-engram@0.4.2", skills: [] }]))).toEqual({ action: "migrate", from: "npm:gentle-engram@0.4.2" });
  });

  it("never rewrites a linked or foreign home, whatever it selects", () => {
    for (const notOurs of ["~/.gentle-shell/agent is a link", "~/.gentle-shell/agent is not the agent folder of ~/.gentle-shell"]) {
      expect(companionAction({ notOurs, settings: settings(["npm:gentle-engram@0.4.2"]) }).action).toBe("none");
      expect(companionAction({ notOurs, settings: null }).action).toBe("none");
    }
  });

  it("keeps every other companion selection: unversioned, other pins, local and git companions", () => {
    for (const entry of [
      "npm:gentle-engram",
      "npm:gentle-engram@0.5.0",
      "npm:gentle-engram@^0.4.2",
      { source: "npm:gentle-engram@0.4.1", extensions: [] },
      "git:github.com/someone/gentle-engram@v1",
    ]) {
      expect(ours(settings([entry])), JSON.stringify(entry)).toEqual({ action: "none", reason: "a companion is selected" });
    }
    const local = "../../work/gentle-engram";
    expect(localSources(settings(["npm:pi-foo@1.2.3", local]))).toEqual([local]);
    expect(ours(settings([local]), { [local]: "gentle-engram" })).toEqual({ action: "none", reason: "a companion is selected" });
    // Not a companion by its package name: the companion is still missing.
    expect(ours(settings([local]), { [local]: "something-else" })).toEqual({ action: "install" });
    // The old registration beside a selection of the user's: both kept.
    expect(ours(settings(["npm:gentle-engram@0.4.2", local]), { [local]: "gentle-engram" }).action).toBe("none");
  });

  it("leaves a settings file it cannot read alone", () => {
    expect(ours("{ not json")).toEqual({ action: "none", reason: "its settings.json is not valid JSON" });
    expect(ours("[]")).toEqual({ action: "none", reason: "its settings.json is not a JSON object" });
    expect(ours(JSON.stringify({ packages: "npm:gentle-engram" }))).toEqual({ action: "none", reason: "its packages setting is not a list" });
  });
});

describe("startupPolicyCheck", () => {
  it("requires engram.startupPolicy: 1 in gentle-engram's package.json", () => {
    const manifest = (m: object) => JSON.stringify({ name: "gentle-engram", version: "0.5.0", ...m });
    expect(startupPolicyCheck(manifest({ engram: { startupPolicy: 1 } }))).toEqual({ ok: true, version: "0.5.0" });
    expect(startupPolicyCheck(manifest({}))).toEqual({ ok: false, reason: "gentle-engram 0.5.0 does not declare engram.startupPolicy: 1" });
    expect(startupPolicyCheck(manifest({ engram: { startupPolicy: "1" } })).ok).toBe(false);
    expect(startupPolicyCheck(manifest({ engram: { startupPolicy: 2 } })).ok).toBe(false);
    expect(startupPolicyCheck(null).ok).toBe(false);
    expect(startupPolicyCheck("{").ok).toBe(false);
    expect(startupPolicyCheck(JSON.stringify({ name: "other", engram: { startupPolicy: 1 } })).ok).toBe(false);
  });
});

describe("lastLine", () => {
  it("gives Pi's last line without colours, and how it ended", () => {
    expect(lastLine({ code: 1, signal: null, stdout: "Installing npm:gentle-engram...\n", stderr: "\x1b[31mError: npm install failed.\x1b[39m\n" })).toBe(
      "it exited with code 1: Error: npm install failed",
    );
    expect(lastLine({ code: null, signal: "SIGTERM", stdout: "", stderr: "" })).toBe("it was stopped by SIGTERM");
  });
});

/** A stand-in for the launcher's I/O that records what was asked of it. */
function fakeIo(o: { settings?: string | null; notOurs?: string | null; claimed?: boolean; install?: Done; manifest?: string | null; npmReady?: boolean }) {
  const calls: string[] = [];
  const records: CompanionRecord[] = [];
  let claimed = o.claimed ?? false;
  const io: CompanionIo = {
    npmReady: o.npmReady ?? true,
    notOurs: async () => o.notOurs ?? null,
    readSettings: async () => o.settings ?? null,
    localName: async () => null,
    claim: async () => {
      calls.push("claim");
      if (claimed) return false;
      claimed = true;
      return true;
    },
    record: async (r) => {
      records.push(r);
    },
    piInstall: async (source) => {
      calls.push(`install ${source}`);
      return o.install ?? { ok: true };
    },
    installedManifest: async () =>
      o.manifest !== undefined ? o.manifest : JSON.stringify({ name: "gentle-engram", version: "0.5.0", engram: { startupPolicy: 1 } }),
    migrate: async (from, to) => {
      calls.push(`migrate ${from} -> ${to}`);
      return { ok: true };
    },
  };
  const lines: string[] = [];
  return { io, calls, records, lines, out: { err: (l: string) => lines.push(l) } };
}

describe("ensureCompanion", () => {
  it("installs a missing companion once, checks it and records it", async () => {
    const f = fakeIo({});
    expect(await ensureCompanion(f.io, f.out)).toEqual({ action: "installed", version: "0.5.0" });
    expect(f.calls).toEqual(["claim", "install npm:gentle-engram"]);
    expect(f.records).toEqual([{ status: "installed", version: "0.5.0" }]);
    expect(f.lines).toHaveLength(1);
    // Claimed before: no second attempt.
    const again = fakeIo({ claimed: true });
    expect(await ensureCompanion(again.io, again.out)).toEqual({ action: "none", reason: "the install was attempted before" });
    expect(again.calls).toEqual(["claim"]);
    expect(again.lines).toEqual([]);
  });

  it("reports a failed install or policy check in one line and records it", async () => {
    const failed = fakeIo({ install: { ok: false, reason: "pi install it exited with code 1: npm error 404" } });
    expect((await ensureCompanion(failed.io, failed.out)).action).toBe("failed");
    expect(failed.records).toEqual([{ status: "failed", reason: "pi install it exited with code 1: npm error 404" }]);
    expect(failed.lines[1]).toMatch(/^gentle-shell: gentle-engram was not installed \(.*\), so Pi starts without it and memory stays behind/);
    expect(failed.lines[1]).not.toContain("\n");
    const unchecked = fakeIo({ manifest: JSON.stringify({ name: "gentle-engram", version: "0.6.0" }) });
    expect(await ensureCompanion(unchecked.io, unchecked.out)).toEqual({
      action: "check-failed",
      reason: "gentle-engram 0.6.0 does not declare engram.startupPolicy: 1",
    });
    expect(unchecked.lines[1]).toContain("was installed, but gentle-engram 0.6.0 does not declare engram.startupPolicy: 1, so memory stays behind");
  });

  it("migrates the old registration without installing, and touches nothing it must not", async () => {
    const old = fakeIo({ settings: settings(["npm:gentle-engram@0.4.2"]) });
    expect(await ensureCompanion(old.io, old.out)).toEqual({ action: "migrated", from: "npm:gentle-engram@0.4.2" });
    expect(old.calls).toEqual(["migrate npm:gentle-engram@0.4.2 -> npm:gentle-engram"]);
    for (const o of [
      { settings: settings(["npm:gentle-engram@0.4.2"]), notOurs: "~/.gentle-shell/agent is a link" },
      { settings: settings(["npm:gentle-engram@0.5.0", "npm:pi-foo@1.2.3"]) },
      { npmReady: false },
    ]) {
      const f = fakeIo(o);
      expect((await ensureCompanion(f.io, f.out)).action, JSON.stringify(o)).toBe("none");
      expect(f.calls).toEqual([]);
      expect(f.lines).toEqual([]);
    }
  });
});
