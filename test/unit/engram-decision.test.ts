import { describe, expect, it } from "vitest";
import { ENGRAM_DEFAULT_URL, headerSignal, isReadyCompatibility, olderServerVersion, parseEngramVersion } from "../../src/engine/engram/contract";
import { afterStart, decideEngram, needsProbe, piEngramVariables, type EngramEvidence } from "../../src/engine/engram/decision";
import { engramServeEnvironment, windowsStableAncestor } from "../../src/engine/engram/serve-environment";
import { PI_SUBCOMMANDS, launchKind, piReadsVersionOrHelp } from "../../src/engine/pi";

const IID = "0123456789abcdef0123456789abcdef";
const RID = "fedcba9876543210fedcba9876543210";
const ready = () => ({
  status: "ready",
  active_reuse_authorized: true,
  capability: "startup-verified-store-v1",
  revision: 1,
  source: "active",
  instance_id: IID,
  runtime_id: RID,
});

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

/** An SQLite header: magic, page size, format bytes, user_version. */
function sqliteHeader(userVersion: number, over: { pageSize?: number; b18?: number; b19?: number; magic?: string } = {}): Buffer {
  const b = Buffer.alloc(100);
  b.write(over.magic ?? "SQLite format 3\0", 0, "latin1");
  b.writeUInt16BE(over.pageSize ?? 4096, 16);
  b[18] = over.b18 ?? 1;
  b[19] = over.b19 ?? 1;
  b.writeInt32BE(userVersion, 60);
  return b;
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
      set: { ENGRAM_BIN: paths.guard, ENGRAM_STARTUP_POLICY: "disabled" },
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
      set: { ENGRAM_BIN: paths.guard, ENGRAM_URL: paths.url, ENGRAM_STARTUP_POLICY: "allowed" },
      unset: [],
    });
  });

  it("keeps the user's explicit values under their own key on Windows and replaces an invalid policy", () => {
    const env = { Engram_Bin: "C:\\engram\\engram.exe", engram_startup_policy: "maybe" };
    const d = decideEngram({ ...evidence({ platform: "win32", env }), compatibility: undefined });
    expect(piEngramVariables(d, env, "win32", paths)).toEqual({
      set: { Engram_Bin: "C:\\engram\\engram.exe", engram_startup_policy: "disabled" },
      unset: [],
    });
  });
});

describe("the ready contract", () => {
  it("accepts the exact answer, with extra fields", () => {
    expect(isReadyCompatibility(ready())).toBe(true);
    expect(isReadyCompatibility({ ...ready(), extra: "x", offline_automatic_opening_authorized: false })).toBe(true);
  });

  const broken: [string, unknown][] = [
    ["status starting", { ...ready(), status: "starting" }],
    ["reuse not authorized", { ...ready(), active_reuse_authorized: false }],
    ["reuse as a string", { ...ready(), active_reuse_authorized: "true" }],
    ["another capability", { ...ready(), capability: "startup-verified-store-v2" }],
    ["revision 2", { ...ready(), revision: 2 }],
    ["revision as a string", { ...ready(), revision: "1" }],
    ["source offline", { ...ready(), source: "offline" }],
    ["short instance_id", { ...ready(), instance_id: IID.slice(1) }],
    ["non-hex runtime_id", { ...ready(), runtime_id: "z".repeat(32) }],
    ["upper-case instance_id", { ...ready(), instance_id: IID.toUpperCase() }],
    ["missing runtime_id", (({ runtime_id: _, ...rest }) => rest)(ready())],
    ["offline opening authorized", { ...ready(), offline_automatic_opening_authorized: true }],
    ["an array", [ready()]],
    ["null", null],
    ["a string", "ready"],
  ];
  for (const [name, value] of broken) {
    it(`refuses ${name}`, () => expect(isReadyCompatibility(value)).toBe(false));
  }
});

describe("/health version", () => {
  it("parses canonical x.y.z with an optional v", () => {
    expect(parseEngramVersion("3.3.2")).toEqual([3, 3, 2]);
    expect(parseEngramVersion("v3.3.2")).toEqual([3, 3, 2]);
    expect(parseEngramVersion("0.0.0")).toEqual([0, 0, 0]);
    expect(parseEngramVersion("9999.0.1")).toEqual([9999, 0, 1]);
  });

  for (const bad of ["03.3.2", "3.03.2", "3.3.02", "10000.0.0", "3.3", "3.3.2.1", "3.3.2-rc1", "V3.3.2", " 3.3.2", "3.3.2\n", "vv3.3.2", "", "3.x.2"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => expect(parseEngramVersion(bad)).toBeNull());
  }
  it("rejects a number", () => expect(parseEngramVersion(3.3)).toBeNull());

  it("selects the older-server wording only below 3.4.0 with a valid instance_id", () => {
    expect(olderServerVersion({ status: "ok", version: "3.3.2", instance_id: IID })).toBe("3.3.2");
    expect(olderServerVersion({ version: "v3.3.9", instance_id: IID })).toBe("3.3.9");
    expect(olderServerVersion({ version: "2.99.99", instance_id: IID })).toBe("2.99.99");
    expect(olderServerVersion({ version: "3.4.0", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "3.5.2", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "4.0.0", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2", instance_id: "abc" })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2" })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2; rm -rf ~", instance_id: IID })).toBeNull();
    expect(olderServerVersion("3.3.2")).toBeNull();
  });
});

describe("the header tripwire", () => {
  it("reads user_version big-endian against the pinned schema", () => {
    expect(headerSignal(sqliteHeader(2), 1)).toEqual({ kind: "newer", userVersion: 2 });
    expect(headerSignal(sqliteHeader(0x01000000), 1)).toEqual({ kind: "newer", userVersion: 0x01000000 });
    expect(headerSignal(sqliteHeader(1), 1)).toEqual({ kind: "not-newer", userVersion: 1 });
    expect(headerSignal(sqliteHeader(0), 1)).toEqual({ kind: "not-newer", userVersion: 0 });
  });

  it("a pin without a verified schema counts any readable header as newer", () => {
    expect(headerSignal(sqliteHeader(0), null)).toEqual({ kind: "newer", userVersion: 0 });
    expect(headerSignal(Buffer.alloc(100), null)).toEqual({ kind: "none" });
  });

  it("accepts every valid page size and the format bytes 1 and 2", () => {
    for (const pageSize of [1, 512, 1024, 4096, 32768]) expect(headerSignal(sqliteHeader(5, { pageSize }), 1).kind).toBe("newer");
    expect(headerSignal(sqliteHeader(5, { b18: 2, b19: 2 }), 1).kind).toBe("newer");
  });

  const invalid: [string, Buffer | null][] = [
    ["no file", null],
    ["a short file", sqliteHeader(5).subarray(0, 99)],
    ["another magic", sqliteHeader(5, { magic: "SQLite format 4\0" })],
    ["page size 0", sqliteHeader(5, { pageSize: 0 })],
    ["page size 1000", sqliteHeader(5, { pageSize: 1000 })],
    ["page size 256", sqliteHeader(5, { pageSize: 256 })],
    ["page size 65535", sqliteHeader(5, { pageSize: 65535 })],
    ["byte 18 is 0", sqliteHeader(5, { b18: 0 })],
    ["byte 19 is 3", sqliteHeader(5, { b19: 3 })],
  ];
  for (const [name, header] of invalid) {
    it(`${name} is no signal`, () => expect(headerSignal(header, 1)).toEqual({ kind: "none" }));
  }
});

describe("the serve environment", () => {
  it("drops every ENGRAM_* and the GitHub tokens, adds ENGRAM_NO_UPDATE_CHECK=1, keeps the rest", () => {
    const r = engramServeEnvironment(
      {
        PATH: "/usr/bin",
        HOME: "/home/ana",
        ENGRAM_HTTP_TOKEN: "s3cret",
        ENGRAM_PORT: "1",
        ENGRAM_DATA_DIR: "/x",
        engram_lower: "x",
        ENGRAM_NO_UPDATE_CHECK: "0",
        GH_TOKEN: "gh",
        GITHUB_TOKEN: "gh2",
        GITHUB_TOKEN_X: "kept",
        MY_ENGRAM: "kept",
        TMPDIR: "/var/tmp/work",
      },
      "linux",
    );
    expect(r).toEqual({
      ok: true,
      env: { PATH: "/usr/bin", HOME: "/home/ana", GITHUB_TOKEN_X: "kept", MY_ENGRAM: "kept", TMPDIR: "/var/tmp/work", ENGRAM_NO_UPDATE_CHECK: "1" },
    });
  });

  it("POSIX drops TMPDIR/TMP/TEMP that name a session scratch folder", () => {
    const r = engramServeEnvironment({ TMPDIR: "/tmp/gpAb12Z9", TMP: "/tmp/ga000000/", TEMP: "/tmp/gp12345", X: "1" }, "linux");
    expect(r).toEqual({ ok: true, env: { TEMP: "/tmp/gp12345", X: "1", ENGRAM_NO_UPDATE_CHECK: "1" } });
    // Seven characters, another prefix, a scratch folder higher up: kept.
    const kept = { TMPDIR: "/tmp/gp1234567", TMP: "/tmp/gx123456", TEMP: "/tmp/gp123456/sub" };
    expect(engramServeEnvironment(kept, "darwin")).toEqual({ ok: true, env: { ...kept, ENGRAM_NO_UPDATE_CHECK: "1" } });
  });

  it("POSIX keys are case-sensitive: tmpdir is not TMPDIR", () => {
    expect(engramServeEnvironment({ tmpdir: "/tmp/gp123456" }, "linux")).toEqual({
      ok: true,
      env: { tmpdir: "/tmp/gp123456", ENGRAM_NO_UPDATE_CHECK: "1" },
    });
  });

  it("Windows replaces scratch settings with their stable ancestor and adds TEMP when absent", () => {
    const r = engramServeEnvironment({ Tmp: "C:\\Users\\ana\\AppData\\Local\\Temp\\gp1a2b3c\\GA9z8y7x", Path: "C:\\Windows" }, "win32");
    expect(r).toEqual({
      ok: true,
      env: {
        Tmp: "C:\\Users\\ana\\AppData\\Local\\Temp",
        Path: "C:\\Windows",
        TEMP: "C:\\Users\\ana\\AppData\\Local\\Temp",
        ENGRAM_NO_UPDATE_CHECK: "1",
      },
    });
  });

  it("Windows keeps a custom TEMP (even on another root) and replaces only the scratch one", () => {
    const r = engramServeEnvironment({ TEMP: "D:\\mytemp", TMP: "C:/Temp/gp123456/", tmpdir: "E:\\t\\ga654321" }, "win32");
    expect(r).toEqual({ ok: true, env: { TEMP: "D:\\mytemp", TMP: "C:/Temp", tmpdir: "E:\\t", ENGRAM_NO_UPDATE_CHECK: "1" } });
  });

  it("Windows strips ENGRAM_* and tokens case-insensitively", () => {
    const r = engramServeEnvironment({ Engram_Http_Token: "s", gh_token: "g", Github_Token: "h", A: "1" }, "win32");
    expect(r).toEqual({ ok: true, env: { A: "1", ENGRAM_NO_UPDATE_CHECK: "1" } });
  });

  it("Windows refuses a relative scratch path instead of guessing a root", () => {
    for (const value of ["gp123456", "Temp\\gp123456", "C:gp123456", "\\Temp\\gp123456"]) {
      const r = engramServeEnvironment({ TEMP: value }, "win32");
      expect(r.ok).toBe(false);
    }
  });

  it("windowsStableAncestor keeps the original spelling up to the last non-scratch component", () => {
    expect(windowsStableAncestor("C:\\gp123456")).toBe("C:\\");
    expect(windowsStableAncestor("C:\\gp123456\\x\\ga654321")).toBe("C:\\gp123456\\x");
    expect(windowsStableAncestor("\\\\srv\\share\\gp123456")).toBe("\\\\srv\\share");
    expect(windowsStableAncestor("c:/Users/a/gp123456/ga123456")).toBe("c:/Users/a");
    expect(windowsStableAncestor("Temp\\gp123456")).toBeNull();
  });
});

describe("when probes are skipped", () => {
  it("reads Pi's version and help flags only where Pi reads them", () => {
    for (const args of [
      ["--version"],
      ["-v"],
      ["--help"],
      ["-h"],
      ["-c", "-v"],
      ["--model", "x", "-h"],
      ["--mode", "-v"],
      ["-p", "-v"],
      ["--unknown-flag", "-h"],
    ]) {
      expect(piReadsVersionOrHelp(args), JSON.stringify(args)).toBe(true);
    }
    for (const args of [
      ["--", "-v"],
      ["explain -v please"],
      ["--model", "-v"],
      ["--name", "-h"],
      ["-e", "--help"],
      ["--append-system-prompt", "--version"],
      ["-p", "---v"],
      ["--list-models", "x", "hello"],
      ["--models=-v"],
      ["-p", "hello", "--", "--help"],
    ]) {
      expect(piReadsVersionOrHelp(args), JSON.stringify(args)).toBe(false);
    }
  });

  it("classifies launches: version/help skip, subcommands classify, the rest is final", () => {
    expect(launchKind([])).toBe("final");
    expect(launchKind(["-p", "hi"])).toBe("final");
    expect(launchKind(["-p", "what does -v do?"])).toBe("final");
    expect(launchKind(["-v"])).toBe("skip");
    expect(launchKind(["--continue", "--help"])).toBe("skip");
    // Pi's own subcommands as Pi's docs/cli.md lists them (Pi 1.6 main.js): the package commands, config, auth and mcp.
    const piSubcommands = ["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"];
    expect(PI_SUBCOMMANDS).toEqual(new Set(piSubcommands));
    for (const sub of piSubcommands) {
      expect(launchKind([sub, "npm:x"])).toBe("classify");
    }
    expect(launchKind(["install", "--help"])).toBe("skip");
    expect(launchKind(["hello", "list"])).toBe("final");
  });
});
