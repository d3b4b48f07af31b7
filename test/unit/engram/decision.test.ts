import { describe, expect, it } from "vitest";
import { ENGRAM_DEFAULT_URL } from "../../../src/installed/engram/contract";
import { afterStart, decideEngram, needsProbe, piEngramVariables, type EngramEvidence } from "../../../src/installed/engram/decision";

const paths = {
  guard: "/home/ana/.gentle-shell/bin/engram-guard",
  core: "/home/ana/.gentle-shell/runtime/engram-3.5.2/engram",
  url: ENGRAM_DEFAULT_URL,
};

function evidence(over: Partial<EngramEvidence> = {}): EngramEvidence {
  return {
    platform: "linux",
    env: { HOME: "/home/ana", PATH: "/usr/bin" },
    paths,
    kind: "final",
    migrationMarker: false,
    coreVerified: true,
    compatibility: { kind: "refused" },
    header: { kind: "none" },
    ...over,
  };
}

describe("the decision table", () => {
  it("reuses a server that answers the exact ready contract: guard + the default URL, policy allowed", () => {
    const d = decideEngram(evidence({ compatibility: { kind: "ready" } }));
    expect(d).toEqual({ memory: "allowed", ENGRAM_BIN: paths.guard, ENGRAM_URL: "http://127.0.0.1:7437", policy: "allowed", row: "reuse" });
  });

  it("nothing listening with a verified core: start, then allowed once ready, else disabled with a notice", () => {
    const start = decideEngram(evidence());
    expect(start).toMatchObject({ memory: "start", ENGRAM_BIN: paths.guard, ENGRAM_URL: paths.url, policy: "allowed" });
    expect(afterStart(start, { ready: true })).toEqual({
      memory: "allowed",
      ENGRAM_BIN: paths.guard,
      ENGRAM_URL: paths.url,
      policy: "allowed",
      row: "started",
    });
    const failed = afterStart(start, { ready: false, why: "exited (code 1) before answering ready" });
    expect(failed).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "start-failed" });
    expect(failed.ENGRAM_URL).toBeUndefined();
    expect(failed.notice).toContain("exited (code 1) before answering ready");
    expect(failed.notice).toContain("without memory");
  });

  it("nothing listening and a newer store header: disabled, no start, the notice says to start the newer server", () => {
    const d = decideEngram(evidence({ header: { kind: "newer", userVersion: 2 } }));
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "newer-store" });
    expect(d.ENGRAM_URL).toBeUndefined();
    expect(d.notice).toMatch(/newer Engram/);
    expect(d.notice).toMatch(/Start that newer Engram's server yourself/);
  });

  it("an equal or lower user_version is no signal: the server is started", () => {
    expect(decideEngram(evidence({ header: { kind: "not-newer", userVersion: 1 } })).memory).toBe("start");
    expect(decideEngram(evidence({ header: { kind: "not-newer", userVersion: 0 } })).memory).toBe("start");
  });

  it("nothing listening and no verified core: disabled behind the guard, never an engram from PATH", () => {
    const d = decideEngram(evidence({ coreVerified: false, env: { PATH: "/usr/local/bin", HOME: "/home/ana" } }));
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "core-missing" });
    expect(d.notice).toMatch(/gentle-shell setup/);
  });

  it("anything else listening is disabled; an older server is named only through a valid /health", () => {
    const d = decideEngram(evidence({ compatibility: { kind: "other", reason: "HTTP 401" }, olderVersion: null }));
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "unknown-listener" });
    expect(d.notice).toMatch(/could not verify safe reuse/);
    expect(d.notice).toMatch(/left running/);
    const old = decideEngram(evidence({ compatibility: { kind: "other", reason: "HTTP 404" }, olderVersion: "3.3.2" }));
    expect(old.memory).toBe("disabled");
    expect(old.notice).toMatch(/reports version 3\.3\.2/);
    expect(old.notice).toMatch(/Back up/);
    expect(old.notice).toMatch(/update that server to 3\.4\.0 or later with its own installation method, and restart it/);
  });

  it("a listener that is not ready wins over the header and the core: no start", () => {
    const d = decideEngram(evidence({ compatibility: { kind: "other", reason: "timeout" }, header: { kind: "newer", userVersion: 9 } }));
    expect(d.row).toBe("unknown-listener");
  });

  for (const name of ["ENGRAM_BIN", "ENGRAM_URL", "ENGRAM_PORT", "ENGRAM_SOCKET", "ENGRAM_DATA_DIR", "ENGRAM_DATABASE_URL", "ENGRAM_SERVER_MODE"]) {
    it(`an explicit ${name} disables memory without a probe or a start`, () => {
      const env = { HOME: "/home/ana", [name]: name === "ENGRAM_DATABASE_URL" ? "postgres://u:secret@db/x" : "/x/y" };
      const pre = { ...evidence({ env }), compatibility: undefined };
      expect(needsProbe(pre)).toBe(false);
      const d = decideEngram(pre);
      expect(d).toMatchObject({ memory: "disabled", policy: "disabled", row: "explicit" });
      expect(d.notice).toContain(name);
      expect(d.notice).not.toContain("secret");
    });
  }

  it("an explicit ENGRAM_BIN and ENGRAM_URL are kept as they are", () => {
    const env = { ENGRAM_BIN: "/opt/engram/bin/engram", ENGRAM_URL: "http://10.0.0.5:9000" };
    const d = decideEngram({ ...evidence({ env }), compatibility: undefined });
    expect(d).toMatchObject({ ENGRAM_BIN: "/opt/engram/bin/engram", ENGRAM_URL: "http://10.0.0.5:9000", policy: "disabled" });
  });

  it("ENGRAM_URL alone gets the verified core as ENGRAM_BIN, or the guard without one", () => {
    const env = { ENGRAM_URL: "http://10.0.0.5:9000" };
    expect(decideEngram({ ...evidence({ env, coreVerified: true }), compatibility: undefined })).toMatchObject({
      ENGRAM_BIN: paths.core,
      ENGRAM_URL: "http://10.0.0.5:9000",
      memory: "disabled",
    });
    expect(decideEngram({ ...evidence({ env, coreVerified: false }), compatibility: undefined }).ENGRAM_BIN).toBe(paths.guard);
  });

  it("other explicit selections keep the guard and get no URL", () => {
    const d = decideEngram({ ...evidence({ env: { ENGRAM_PORT: "9999" } }), compatibility: undefined });
    expect(d.ENGRAM_BIN).toBe(paths.guard);
    expect(d.ENGRAM_URL).toBeUndefined();
  });

  it("an invalid ENGRAM_STARTUP_POLICY disables without a probe; a valid one does not select anything", () => {
    const bad = { ...evidence({ env: { ENGRAM_STARTUP_POLICY: "yes-please" } }), compatibility: undefined };
    expect(needsProbe(bad)).toBe(false);
    expect(decideEngram(bad)).toMatchObject({ memory: "disabled", policy: "disabled", ENGRAM_BIN: paths.guard });
    expect(decideEngram(bad).notice).toMatch(/ENGRAM_STARTUP_POLICY/);
    const allowed = { ...evidence({ env: { ENGRAM_STARTUP_POLICY: "allowed" } }), compatibility: undefined };
    expect(needsProbe(allowed)).toBe(true);
    expect(decideEngram(evidence({ env: { ENGRAM_STARTUP_POLICY: "allowed" }, compatibility: { kind: "other", reason: "x" } })).policy).toBe("disabled");
    const off = { ...evidence({ env: { ENGRAM_STARTUP_POLICY: "disabled" } }), compatibility: undefined };
    expect(needsProbe(off)).toBe(false);
    expect(decideEngram(off)).toMatchObject({ memory: "disabled", row: "policy-disabled" });
    expect(decideEngram(off).notice).toBeUndefined();
  });

  it("the empty string counts as not set", () => {
    expect(needsProbe({ ...evidence({ env: { ENGRAM_BIN: "", ENGRAM_PORT: "" } }), compatibility: undefined })).toBe(true);
  });

  it("Windows reads the explicit variables case-insensitively", () => {
    const pre = { ...evidence({ platform: "win32", env: { Engram_Port: "1" } }), compatibility: undefined };
    expect(needsProbe(pre)).toBe(false);
    expect(decideEngram(pre).notice).toContain("ENGRAM_PORT");
    expect(needsProbe({ ...evidence({ platform: "linux", env: { Engram_Port: "1" } }), compatibility: undefined })).toBe(true);
  });

  it("the guard and URL an outer Shell set are not a selection: this launch decides again", () => {
    const env = { ENGRAM_BIN: paths.guard, ENGRAM_URL: paths.url, ENGRAM_STARTUP_POLICY: "allowed" };
    expect(needsProbe({ ...evidence({ env }), compatibility: undefined })).toBe(true);
    const d = decideEngram(evidence({ env, compatibility: { kind: "other", reason: "HTTP 401" } }));
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard });
    expect(piEngramVariables(d, env, "linux", paths)).toEqual({
      set: { ENGRAM_BIN: paths.guard, ENGRAM_STARTUP_POLICY: "disabled", ENGRAM_STARTUP_NOTICE: d.notice },
      unset: ["ENGRAM_URL"],
    });
    // Our URL with somebody else's ENGRAM_BIN is the user's selection.
    expect(needsProbe({ ...evidence({ env: { ENGRAM_BIN: "/usr/bin/engram", ENGRAM_URL: paths.url } }), compatibility: undefined })).toBe(false);
  });

  it("an interrupted migration's marker blocks memory before any probe", () => {
    const pre = { ...evidence({ migrationMarker: true }), compatibility: undefined };
    expect(needsProbe(pre)).toBe(false);
    const d = decideEngram(pre);
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, row: "migration-marker" });
    expect(d.notice).toMatch(/engram-migration\.json/);
  });

  it("a version or help launch: no probe, no notice, the guard", () => {
    const pre = { ...evidence({ kind: "skip" }), compatibility: undefined };
    expect(needsProbe(pre)).toBe(false);
    expect(decideEngram(pre)).toEqual({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "skipped" });
    expect(decideEngram({ ...pre, env: { ENGRAM_PORT: "1" } }).notice).toBeUndefined();
  });

  it("subcommands and setup classify but never start", () => {
    const d = decideEngram(evidence({ kind: "classify" }));
    expect(d).toMatchObject({ memory: "disabled", ENGRAM_BIN: paths.guard, policy: "disabled", row: "start-not-allowed" });
    expect(decideEngram(evidence({ kind: "classify", compatibility: { kind: "ready" } })).memory).toBe("allowed");
  });

  it("decideEngram refuses to guess when the probe is needed but missing", () => {
    expect(() => decideEngram({ ...evidence(), compatibility: undefined })).toThrow(/probed/);
  });
});

describe("piEngramVariables", () => {
  it("sets ENGRAM_BIN, ENGRAM_URL and the policy for an allowed launch", () => {
    const d = decideEngram(evidence({ compatibility: { kind: "ready" } }));
    expect(piEngramVariables(d, {}, "linux", paths)).toEqual({
      set: {
        ENGRAM_BIN: paths.guard,
        ENGRAM_URL: paths.url,
        ENGRAM_STARTUP_POLICY: "allowed",
        ENGRAM_STARTUP_NOTICE: `gentle-shell: this session reaches Engram memory only through the shared server at ${paths.url} (ENGRAM_URL); Gentle Shell's guard stands in for a local engram and never opens the store itself.`,
      },
      unset: [],
    });
  });

  it("hands the guard this launch's reason: the decision's notice, or memory off without one", () => {
    const marker = decideEngram({ ...evidence({ migrationMarker: true }), compatibility: undefined });
    expect(piEngramVariables(marker, {}, "linux", paths).set.ENGRAM_STARTUP_NOTICE).toBe(marker.notice);
    expect(marker.notice).toMatch(/engram-migration\.json/);
    const skipped = decideEngram({ ...evidence({ kind: "skip" }), compatibility: undefined });
    expect(piEngramVariables(skipped, {}, "linux", paths).set.ENGRAM_STARTUP_NOTICE).toBe(
      "gentle-shell: Engram memory is disabled for this session. Gentle Shell keeps working without memory and checks again on the next launch.",
    );
    // An outer Shell's notice is replaced under its own key on Windows.
    expect(piEngramVariables(marker, { Engram_Startup_Notice: "old" }, "win32", paths).set).toHaveProperty("Engram_Startup_Notice", marker.notice);
  });

  it("keeps the user's explicit values under their own key on Windows and replaces an invalid policy", () => {
    const env = { Engram_Bin: "C:\\engram\\engram.exe", engram_startup_policy: "maybe" };
    const d = decideEngram({ ...evidence({ platform: "win32", env }), compatibility: undefined });
    expect(piEngramVariables(d, env, "win32", paths)).toEqual({
      set: { Engram_Bin: "C:\\engram\\engram.exe", engram_startup_policy: "disabled", ENGRAM_STARTUP_NOTICE: d.notice },
      unset: [],
    });
  });
});
