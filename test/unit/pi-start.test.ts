/**
 * How the engine starts Pi (issue 29): src/core/pi-start.ts decides, and
 * src/engine/pi-handover.ts `becomePiProcess` makes this process Pi's.
 */
import http from "node:http";
import https from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { freshNodeNeeded, piStartPlan, STARTUP_READ } from "../../src/core/pi-start";
import { becomePiProcess } from "../../src/engine/pi-handover";

const base = { platform: "linux" as const, canExecve: true };

/** The engine's environment as the launcher starts it when the user set no NODE_USE_SYSTEM_CA: the value and its marker. */
const launched = { NODE_USE_SYSTEM_CA: "1", GENTLE_SHELL_SYSTEM_CA: "1" };

describe("piStartPlan", () => {
  it("is in-process when this Node is the one a fresh `node cli.js` would be", () => {
    const env = { PATH: "/usr/bin", NODE_USE_SYSTEM_CA: "1" };
    expect(piStartPlan({ ...base, startEnv: env, piEnv: { ...env, PI_SKIP_VERSION_CHECK: "1" }, execArgv: ["--use-env-proxy"] })).toEqual({
      how: "in-process",
    });
  });

  it("keeps Pi in this Node when the launcher's NODE_USE_SYSTEM_CA was taken from Pi's environment: this Node trusts the store already", () => {
    expect(piStartPlan({ ...base, startEnv: { PATH: "/usr/bin", ...launched }, piEnv: { PATH: "/usr/bin" }, execArgv: [] })).toEqual({ how: "in-process" });
    // The user's own value, 0 included, is Pi's too: the same in both.
    for (const value of ["0", "1", ""]) {
      expect(freshNodeNeeded({ platform: "linux", startEnv: { NODE_USE_SYSTEM_CA: value }, piEnv: { NODE_USE_SYSTEM_CA: value }, execArgv: [] })).toBeNull();
    }
    // Only 1 turns the store on (Node reads no other value): a 0 and an unknown value mean the same.
    expect(freshNodeNeeded({ platform: "linux", startEnv: { NODE_USE_SYSTEM_CA: "0" }, piEnv: { NODE_USE_SYSTEM_CA: "yes" }, execArgv: [] })).toBeNull();
  });

  it("gives Pi a fresh Node when this Node's trust in the system store is not Pi's", () => {
    // A launcher from before issue 28 sets nothing: Pi is to trust the store, this Node does not.
    expect(freshNodeNeeded({ platform: "linux", startEnv: {}, piEnv: {}, execArgv: [] })).toMatch(/NODE_USE_SYSTEM_CA/);
    expect(freshNodeNeeded({ platform: "linux", startEnv: launched, piEnv: { NODE_USE_SYSTEM_CA: "0" }, execArgv: [] })).toMatch(/NODE_USE_SYSTEM_CA/);
  });

  it("gives a user's NODE_OPTIONS a fresh Node (execve on POSIX, a child on Windows); an empty one stays in-process", () => {
    const startEnv = { NODE_USE_SYSTEM_CA: "1" };
    const piEnv = { NODE_USE_SYSTEM_CA: "1", NODE_OPTIONS: "--max-old-space-size=3000" };
    expect(piStartPlan({ ...base, startEnv, piEnv, execArgv: [] })).toMatchObject({ how: "execve", because: expect.stringContaining("NODE_OPTIONS") });
    expect(piStartPlan({ ...base, platform: "win32", startEnv, piEnv, execArgv: [] })).toMatchObject({ how: "child" });
    expect(piStartPlan({ ...base, canExecve: false, startEnv, piEnv, execArgv: [] })).toMatchObject({ how: "child" });
    expect(piStartPlan({ ...base, startEnv, piEnv: { ...piEnv, NODE_OPTIONS: "  " }, execArgv: [] })).toEqual({ how: "in-process" });
  });

  it.each(STARTUP_READ)("gives Pi a fresh Node when %s differs from this Node's (read only when Node starts)", (name) => {
    const reason = freshNodeNeeded({ platform: "linux", startEnv: { ...launched, [name]: "a" }, piEnv: { [name]: "b" }, execArgv: [] });
    expect(reason).toContain(name);
  });

  it("names the system store: a launcher of an older version starts the engine without NODE_USE_SYSTEM_CA, which Pi gets", () => {
    expect(freshNodeNeeded({ platform: "linux", startEnv: {}, piEnv: { NODE_USE_SYSTEM_CA: "1" }, execArgv: [] })).toMatch(/NODE_USE_SYSTEM_CA/);
  });

  it("reads Windows variables in any case", () => {
    expect(freshNodeNeeded({ platform: "win32", startEnv: { Node_Use_System_CA: "1" }, piEnv: { NODE_USE_SYSTEM_CA: "1" }, execArgv: [] })).toBeNull();
  });

  it("gives Pi a fresh Node when this Node runs with an option other than the engine's own", () => {
    expect(freshNodeNeeded({ platform: "linux", startEnv: launched, piEnv: {}, execArgv: ["--use-env-proxy", "--inspect"] })).toMatch(/--inspect/);
  });
});

describe("becomePiProcess", () => {
  const agents = { http: http.globalAgent, https: https.globalAgent };
  afterEach(() => {
    http.globalAgent = agents.http;
    https.globalAgent = agents.https;
  });

  it("leaves exactly Pi's environment, argv and Node options, no exit code, and Node's plain global agents", () => {
    const target = {
      env: { ENGINE_ONLY: "x", GENTLE_SHELL_USER_NODE_OPTIONS: "", PATH: "/bin" } as NodeJS.ProcessEnv,
      argv: ["node", "start.cjs", "--gentle-shell-engine", "-p", "hi"],
      execArgv: ["--use-env-proxy"],
      exitCode: 3 as number | undefined,
    };
    const proxied = new http.Agent({ keepAlive: true });
    http.globalAgent = proxied;
    const piEnv = { PATH: "/bin", PI_SKIP_VERSION_CHECK: "1", NODE_OPTIONS: "", HTTPS_PROXY: "http://proxy.invalid:3128" };
    becomePiProcess(target, piEnv, ["node", "cli.js", "-p", "hi"]);
    expect(target.env).toEqual(piEnv);
    expect(target.argv).toEqual(["node", "cli.js", "-p", "hi"]);
    expect(target.execArgv).toEqual([]);
    expect(target.exitCode).toBeUndefined();
    expect(http.globalAgent).not.toBe(proxied);
    const { options } = http.globalAgent as unknown as { options: Record<string, unknown> };
    expect(options).toMatchObject({ keepAlive: true, scheduling: "lifo", timeout: 5000 });
    expect(options.proxyEnv).toBeUndefined();
  });

  it("leaves the global agents alone when no proxy variable is set: their settings name no proxy, as Node's plain ones", () => {
    const agent = http.globalAgent;
    becomePiProcess({ env: {}, argv: [], execArgv: ["--use-env-proxy"] }, { PATH: "/bin" }, ["node", "cli.js"]);
    expect(http.globalAgent).toBe(agent);
  });

  it("keeps the global agents when the user asked Node for proxy settings (NODE_USE_ENV_PROXY=1), as a fresh Node would", () => {
    const theirs = new http.Agent({ keepAlive: true });
    http.globalAgent = theirs;
    becomePiProcess({ env: {}, argv: [], execArgv: [] }, { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: "http://proxy.invalid:3128" }, ["node", "cli.js"]);
    expect(http.globalAgent).toBe(theirs);
  });
});
