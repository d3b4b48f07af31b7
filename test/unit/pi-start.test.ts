/**
 * How the engine starts Pi (issue 29): src/core/pi-start.ts decides, and
 * src/engine/pi-handover.ts `becomePiProcess` makes this process Pi's.
 */
import http from "node:http";
import https from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { freshNodeNeeded, piStartPlan, STARTUP_READ } from "../../src/core/pi-start";
import { becomePiProcess } from "../../src/engine/pi-handover";
import { useEnvProxy } from "../../src/io/env-proxy";
import { testHost } from "../support/host";

const base = { platform: "linux" as const, canExecve: true };

/** The engine's environment as the launcher starts it when the user set no NODE_USE_SYSTEM_CA: the value and its marker. */
const launched = { NODE_USE_SYSTEM_CA: "1", GENTLE_SHELL_SYSTEM_CA: "1" };

describe("piStartPlan", () => {
  it("is in-process when this Node is the one a fresh `node cli.js` would be", () => {
    const env = { PATH: "/usr/bin", NODE_USE_SYSTEM_CA: "1" };
    expect(piStartPlan({ ...base, startEnv: env, piEnv: { ...env, PI_SKIP_VERSION_CHECK: "1" }, execArgv: [] })).toEqual({
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

  it("gives Pi a fresh Node when this Node runs with any Node option (the engine runs with none)", () => {
    expect(freshNodeNeeded({ platform: "linux", startEnv: launched, piEnv: {}, execArgv: ["--inspect"] })).toMatch(/--inspect/);
    // A launcher written by an older version still passes --use-env-proxy: its proxied agents are no Node started for Pi.
    expect(freshNodeNeeded({ platform: "linux", startEnv: launched, piEnv: {}, execArgv: ["--use-env-proxy"] })).toMatch(/--use-env-proxy/);
  });
});

describe("becomePiProcess", () => {
  const agents = { http: http.globalAgent, https: https.globalAgent };
  const state = Symbol.for("gentle-shell-setup.env-proxy");
  afterEach(() => {
    http.globalAgent = agents.http;
    https.globalAgent = agents.https;
    delete (globalThis as Record<symbol, unknown>)[state];
  });

  /** What Node 24's http.setGlobalProxyFromEnv does to the agents (this suite's Node 20 has none): proxied agents, and a restore. */
  function nodeSwitch() {
    const calls: string[] = [];
    return {
      calls,
      http: () => ({
        setGlobalProxyFromEnv(env: NodeJS.ProcessEnv) {
          calls.push(`set ${env.HTTPS_PROXY}`);
          const before = { http: http.globalAgent, https: https.globalAgent };
          http.globalAgent = new http.Agent({ keepAlive: true, proxyEnv: env } as http.AgentOptions);
          https.globalAgent = new https.Agent({ keepAlive: true, proxyEnv: env } as https.AgentOptions);
          return () => {
            calls.push("restore");
            http.globalAgent = before.http;
            https.globalAgent = before.https;
          };
        },
      }),
    };
  }

  it("leaves exactly Pi's environment and argv, no exit code, and Node's own global agents where the engine gave them the proxy", () => {
    const engineEnv = { ENGINE_ONLY: "x", GENTLE_SHELL_USER_NODE_OPTIONS: "", PATH: "/bin", HTTPS_PROXY: "http://proxy.invalid:3128" };
    const target = {
      env: { ...engineEnv } as NodeJS.ProcessEnv,
      argv: ["node", "start.cjs", "--gentle-shell-engine", "-p", "hi"],
      exitCode: 3 as number | undefined,
    };
    const node = nodeSwitch();
    expect(useEnvProxy(engineEnv, "linux", node.http)).toBeNull();
    expect(https.globalAgent).not.toBe(agents.https);
    const piEnv = { PATH: "/bin", PI_SKIP_VERSION_CHECK: "1", NODE_OPTIONS: "", HTTPS_PROXY: "http://proxy.invalid:3128" };
    becomePiProcess(target, piEnv, ["node", "cli.js", "-p", "hi"], testHost());
    expect(target.env).toEqual(piEnv);
    expect(target.argv).toEqual(["node", "cli.js", "-p", "hi"]);
    expect(target.exitCode).toBeUndefined();
    expect(node.calls).toEqual(["set http://proxy.invalid:3128", "restore"]);
    expect(http.globalAgent).toBe(agents.http);
    expect(https.globalAgent).toBe(agents.https);
    expect((https.globalAgent as unknown as { options: Record<string, unknown> }).options.proxyEnv).toBeUndefined();
    // Once: the full engine after the launch part, or the installer after the single executable's main, finds it done.
    expect(useEnvProxy(engineEnv, "linux", node.http)).toBeNull();
    expect(node.calls).toHaveLength(2);
  });

  it("loads nothing for proxies and leaves the global agents alone when no proxy variable is set", () => {
    const agent = http.globalAgent;
    const node = nodeSwitch();
    expect(useEnvProxy({ PATH: "/bin", HTTP_PROXY: "", Http_Proxy: "http://ignored-on-posix:1" }, "linux", node.http)).toBeNull();
    becomePiProcess({ env: {}, argv: [] }, { PATH: "/bin" }, ["node", "cli.js"], testHost());
    expect(node.calls).toEqual([]);
    expect(http.globalAgent).toBe(agent);
  });

  it("gives back the agents Node made when it started (a user's NODE_USE_ENV_PROXY=1 gave them the proxy), as a fresh Node would have them", () => {
    const theirs = new http.Agent({ keepAlive: true });
    http.globalAgent = theirs;
    const env = { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: "http://proxy.invalid:3128" };
    const node = nodeSwitch();
    expect(useEnvProxy(env, "linux", node.http)).toBeNull();
    expect(http.globalAgent).not.toBe(theirs);
    becomePiProcess({ env: {}, argv: [] }, env, ["node", "cli.js"], testHost());
    expect(http.globalAgent).toBe(theirs);
  });

  it("a proxy variable Node cannot use is refused with its sentence, and nothing is switched", () => {
    const node = nodeSwitch();
    const refused = useEnvProxy({ HTTP_PROXY: "http://carol:Kq7w#Vz3x@127.0.0.1:1" }, "linux", node.http);
    expect(refused).toMatch(/^HTTP_PROXY is not a proxy URL Node can use: /);
    expect(refused).not.toMatch(/Kq7w|Vz3x/);
    expect(node.calls).toEqual([]);
    // The same sentence again for the next entry of this process.
    expect(useEnvProxy({}, "linux", node.http)).toBe(refused);
  });
});
