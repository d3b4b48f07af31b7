/**
 * Behind a TLS-inspecting proxy (issue 28), as most developers at companies
 * are: HTTPS_PROXY names a proxy that terminates every tunnel with a
 * certificate of its own private CA (./support/intercepting-proxy.ts), and
 * that CA is only in the system store (OpenSSL's default file, pointed at
 * the test's bundle), none of this machine's own CA settings visible. Through
 * it, `gentle-shell upgrade` from an HTTPS mirror and a `-p` launch whose
 * model is served over HTTPS both work, and the proxy read every request.
 */
import { promises as fs, readFileSync } from "node:fs";
import { join } from "pathe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE_MANIFEST } from "../../src/core/release-manifest";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { startHttpsFront } from "../support/https-front";
import { installed } from "../support/installed";
import { type InterceptingProxy, startInterceptingProxy } from "../support/intercepting-proxy";
import { addPiExtension, piEnv } from "../support/pi-home";
import { runCommand } from "../support/proc";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { makeTestCa, onlyTrust, type TestCa } from "../support/test-ca";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
let ca: TestCa;
let proxy: InterceptingProxy;
let mirror: Awaited<ReturnType<typeof startHttpsFront>>;
let model: Awaited<ReturnType<typeof startHttpsFront>>;

beforeAll(async () => {
  ca = makeTestCa("corporate inspection CA");
  proxy = await startInterceptingProxy(ca, readFileSync(ca.caFile, "utf8"));
  mirror = await startHttpsFront(ca, f.mirrorUrl);
  model = await startHttpsFront(ca, f.modelUrl);
});
afterAll(async () => {
  await proxy?.close();
  await mirror?.close();
  await model?.close();
});

/** The home's environment behind the proxy: HTTPS_PROXY for everything https (loopback too), the CA only in the system store. */
function behindProxy(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = onlyTrust(homeEnv(home, { HTTPS_PROXY: proxy.url, https_proxy: proxy.url, NO_PROXY: "", no_proxy: "", ...extra }), { SSL_CERT_FILE: ca.caFile });
  for (const name of ["HTTP_PROXY", "http_proxy"]) delete env[name];
  return env;
}

describe("behind a TLS-inspecting proxy whose CA is in the system store", () => {
  it("gentle-shell upgrade from an HTTPS mirror works, every request of it read by the proxy", async () => {
    const i = await installed(f, { release: older.shell });
    const before = proxy.lines.length;
    const up = await runCommand(i.gs, ["upgrade", "--source", mirror.url], { env: behindProxy(i.home), cwd: i.home });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is now current`);
    const seen = proxy.lines.slice(before);
    expect(seen).toContain(`CONNECT ${new URL(mirror.url).host}`);
    expect(seen).toContain(`GET ${mirror.url}/releases/v${latest.shell}/${RELEASE_MANIFEST}`);
    const version = await runCommand(i.gs, ["--version"], { env: behindProxy(i.home), cwd: i.home });
    expect(version.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("a -p launch asks its model over HTTPS through the proxy, and answers, with no NODE_USE_SYSTEM_CA handed to Pi's children", async () => {
    const i = await installed(f, { fresh: true, extra: ["--no-setup"] });
    const scope = await stubModelClient(f.modelUrl).scope("Answered through the inspecting proxy.");
    // The scope's path on the HTTPS front: the model is asked at https://127.0.0.1:<front>/s/<scope>/v1.
    await writeStubModelConfig(join(i.prefix, "agent"), `${model.url}${new URL(scope.baseUrl).pathname}`);
    // The test extension records Pi's process from inside: its environment is what Pi's bash tool hands every command.
    await addPiExtension(join(i.prefix, "agent"), "gss-process.js");
    const launch = async (extra: NodeJS.ProcessEnv) => {
      const record = join(i.root, `process-${Object.keys(extra).join("-") || "plain"}.json`);
      const before = proxy.lines.length;
      const r = await runCommand(i.gs, ["-p", "hello through the proxy"], {
        env: piEnv(behindProxy(i.home, { GSS_PROCESS_RECORD: record, ...extra })),
        cwd: i.home,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe("Answered through the inspecting proxy.");
      expect(proxy.lines.slice(before).some((line) => line.startsWith(`POST ${model.url}/s/`))).toBe(true);
      return JSON.parse(await fs.readFile(record, "utf8")) as { pid: number; execArgv: string[]; env: Record<string, string> };
    };
    // Pi in the launcher's own Node, which trusts the system store: the variable the launcher set for it is not Pi's.
    const inProcess = await launch({});
    expect(inProcess.execArgv).toEqual([]);
    expect(inProcess.env).not.toHaveProperty("NODE_USE_SYSTEM_CA");
    expect(inProcess.env).not.toHaveProperty("GENTLE_SHELL_SYSTEM_CA");
    // A user's NODE_OPTIONS gives Pi a fresh Node: it trusts the store by Node's option, still with no variable.
    const fresh = await launch({ NODE_OPTIONS: "--max-old-space-size=3000" });
    expect(fresh.execArgv).toEqual(["--use-system-ca"]);
    expect(fresh.env).not.toHaveProperty("NODE_USE_SYSTEM_CA");
    expect(fresh.env.NODE_OPTIONS).toBe("--max-old-space-size=3000");
    expect(await scope.requests()).toHaveLength(2);
  });
});
