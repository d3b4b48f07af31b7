/**
 * doctor's reachability checks for the official source (issue 41,
 * src/commands/doctor/reach.ts): the words of each answer (ok, through a
 * proxy, a timeout, an untrusted certificate, a proxy that wants a
 * password, a DNS name that does not resolve, a refused connection, a cut),
 * credentials masked; offline, nothing is asked; the registry is the one
 * npm's configuration names, the release home is asked for the active
 * version's signed manifest, and a real refused connection reads as one.
 */
import { promises as fs } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "pathe";
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../../src/core/layout";
import { RELEASE_MANIFEST } from "../../../src/core/release-manifest";
import { RELEASE_HOME } from "../../../src/core/source";
import type { DoctorContext } from "../../../src/commands/doctor/context";
import { type Answer, officialReachChecks, reachCheck, type ReachTarget, releaseHomeUrl, unreachableWhy } from "../../../src/commands/doctor/reach";
import { httpClient, type HttpClient } from "../../../src/io/http-client";
import { productionPins } from "../../../src/pins/production";
import { scratchDir } from "../../support/scratch";

const REGISTRY = "http://127.0.0.1:4873/";
const registry: ReachTarget = { id: "machine.registry", name: "the npm registry", shown: REGISTRY, url: REGISTRY, advice: "check it" };
const home: ReachTarget = {
  id: "machine.release-home",
  name: "the release home",
  shown: `https://github.com/${RELEASE_HOME}/releases`,
  url: releaseHomeUrl("4.1.0"),
  advice: "an upgrade needs it",
};
const PROXY = "http://alice:s3cret@127.0.0.1:3128";
const viaProxy = { HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY };

const line = (target: ReachTarget, answer: Answer, env = {}) => reachCheck(target, answer, env).line;

describe("a reachability check's words", () => {
  it("an answer is ok, and names the proxy it went through with its password masked", () => {
    expect(reachCheck(registry, { answered: true }, {})).toEqual({
      group: "machine",
      id: "machine.registry",
      status: "ok",
      line: `the npm registry ${REGISTRY} answers`,
    });
    const through = line(home, { answered: true }, viaProxy);
    expect(through).toBe(`the release home https://github.com/${RELEASE_HOME}/releases answers through the proxy http://***@127.0.0.1:3128`);
  });

  it("each failure is a warning of one sentence with what needs it, never a password", () => {
    const cases: Array<[Answer, NodeJS.ProcessEnv, RegExp]> = [
      [{ failed: "timeout" }, {}, /^the release home \S+ did not answer within 10 s$/],
      [{ failed: "timeout" }, viaProxy, /^the release home \S+ did not answer through the proxy http:\/\/\*\*\*@127\.0\.0\.1:3128 within 10 s$/],
      [
        { failed: "certificate", cause: "SELF_SIGNED_CERT_IN_CHAIN" },
        {},
        /^the release home \S+ answered, but the certificate of github\.com is signed by an authority/,
      ],
      [
        { failed: "proxy-auth", cause: "HTTP 407" },
        viaProxy,
        /^the release home \S+ cannot be asked: the proxy http:\/\/\*\*\*@127\.0\.0\.1:3128 refused the user name and password in HTTPS_PROXY/,
      ],
      [
        { failed: "unreachable", cause: "ENOTFOUND" },
        {},
        /^the release home \S+ cannot be reached: its host name github\.com does not resolve \(DNS: ENOTFOUND\)$/,
      ],
      [
        { failed: "unreachable", cause: "ECONNREFUSED" },
        viaProxy,
        /cannot be reached: the proxy http:\/\/\*\*\*@127\.0\.0\.1:3128 refused the connection \(ECONNREFUSED\)$/,
      ],
      [
        { failed: "unreachable", cause: "ERR_PROXY_TUNNEL" },
        viaProxy,
        /cannot be reached: the proxy \S+ would not open a tunnel to github\.com \(ERR_PROXY_TUNNEL\)$/,
      ],
      [{ failed: "unreachable", cause: "ECONNRESET" }, {}, /cannot be reached: the connection was cut before any answer \(ECONNRESET\)$/],
      [{ failed: "not-made", cause: "offline: no request is made" }, {}, /cannot be asked \(offline: no request is made\)$/],
    ];
    for (const [answer, env, wording] of cases) {
      const check = reachCheck(home, answer, env);
      expect(check.status).toBe("warn");
      expect(check.line).toMatch(wording);
      expect(check.line).not.toContain("s3cret");
      expect(check.line).not.toContain("\n");
      expect(check.repair).toEqual({ kind: "command", sentence: "an upgrade needs it" });
    }
  });

  it("a DNS failure behind a proxy is the proxy's name; a refused connection without one is the host's", () => {
    expect(unreachableWhy("EAI_AGAIN", REGISTRY, PROXY)).toBe("the proxy http://***@127.0.0.1:3128's host name does not resolve (DNS: EAI_AGAIN)");
    expect(unreachableWhy("ECONNREFUSED", REGISTRY, null)).toBe("127.0.0.1:4873 refused the connection (ECONNREFUSED)");
    expect(unreachableWhy("EPROTO", REGISTRY, null)).toBe("it does not answer (EPROTO)");
  });

  it("the release home is asked for the active version's signed manifest, or its downloads' root without one", () => {
    expect(releaseHomeUrl("4.1.0")).toBe(`https://github.com/${RELEASE_HOME}/releases/download/v4.1.0/${RELEASE_MANIFEST}`);
    expect(releaseHomeUrl(null)).toBe(`https://github.com/${RELEASE_HOME}/releases/download`);
  });
});

/** A doctor context over an empty prefix whose npmrc names `registryUrl`, asking through `http`. */
async function context(http: HttpClient, env: NodeJS.ProcessEnv, registryUrl = REGISTRY): Promise<DoctorContext> {
  const layout = prefixLayout({ home: join(scratchDir("gss-reach-"), "home"), platform: "linux", pins: productionPins });
  await fs.mkdir(dirname(layout.pnpm.npmrc), { recursive: true });
  await fs.writeFile(layout.pnpm.npmrc, `registry=${registryUrl}\n`);
  return { layout, pins: productionPins, target: "linux-x64", env, program: "gentle-shell", http, probes: {} as DoctorContext["probes"] };
}

/** An HTTP client that records what it is asked and answers from `answers` by URL. */
function recording(answers: Record<string, Answer>, offline = false) {
  const asked: string[] = [];
  const http = {
    offline,
    trustRegistry: () => undefined,
    answersAtAll: async (url: string) => {
      asked.push(url);
      return answers[url] ?? { failed: "unreachable", cause: "ENOTFOUND" };
    },
  } as unknown as HttpClient;
  return { http, asked };
}

describe("officialReachChecks", () => {
  it("asks the registry npm's configuration names and the release home, each once", async () => {
    const { http, asked } = recording({ [REGISTRY]: { answered: true }, [releaseHomeUrl("4.1.0")]: { failed: "timeout" } });
    const checks = await officialReachChecks(await context(http, {}), "4.1.0");
    expect(asked.sort()).toEqual([REGISTRY, releaseHomeUrl("4.1.0")].sort());
    expect(checks.map((c) => [c.id, c.status, c.line])).toEqual([
      ["machine.registry", "ok", `the npm registry ${REGISTRY} answers`],
      ["machine.release-home", "warn", `the release home https://github.com/${RELEASE_HOME}/releases did not answer within 10 s`],
    ]);
  });

  it("offline, by PI_OFFLINE or by the client, asks nothing and says so", async () => {
    for (const [env, offline] of [[{ PI_OFFLINE: "1" }, false] as const, [{}, true] as const]) {
      const { http, asked } = recording({}, offline);
      const checks = await officialReachChecks(await context(http, env), "4.1.0");
      expect(asked).toEqual([]);
      expect(checks.map((c) => [c.status, c.line])).toEqual([
        ["ok", "the npm registry was not asked (offline)"],
        ["ok", `the release home https://github.com/${RELEASE_HOME}/releases was not asked (offline)`],
      ]);
    }
  });

  it("a registry with credentials in its URL is named with them masked", async () => {
    const secret = "http://bob:t0psecret@127.0.0.1:4873/";
    const { http } = recording({});
    const [check] = await officialReachChecks(await context(http, {}, secret), "4.1.0");
    expect(check!.line).toBe("the npm registry http://***@127.0.0.1:4873/ cannot be reached: its host name 127.0.0.1:4873 does not resolve (DNS: ENOTFOUND)");
  });

  it("through the real client, a registry whose port nobody listens on reads as a refused connection", async () => {
    const closed = await new Promise<number>((done) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => done(port));
      });
    });
    const url = `http://127.0.0.1:${closed}/`;
    const real = httpClient({ role: "engine", target: "linux-x64", env: {} });
    // Only the registry goes out (to loopback); the release home is answered here, never from this machine's network.
    const http: HttpClient = { ...real, answersAtAll: (u, ms) => (u === url ? real.answersAtAll(u, ms) : Promise.resolve({ answered: true as const })) };
    const [check] = await officialReachChecks(await context(http, {}, url), null);
    expect(check).toMatchObject({ id: "machine.registry", status: "warn" });
    expect(check!.line).toBe(`the npm registry ${url} cannot be reached: 127.0.0.1:${closed} refused the connection (ECONNREFUSED)`);
  });
});
