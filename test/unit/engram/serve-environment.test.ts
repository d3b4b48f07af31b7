import { describe, expect, it } from "vitest";
import { engramServeEnvironment, windowsStableAncestor } from "../../../src/core/environment";

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
