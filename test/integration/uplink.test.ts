/**
 * The fixtures' one check of their uplink (issue 25, defect 9): a registry
 * that cannot be reached is said in one sentence naming the cause and what
 * to check, instead of surfacing later as pnpm's "not in the npm registry".
 * Real servers on loopback: one that serves Pi, one that answers 404, a
 * closed port, and HTTPS under a certificate nobody trusts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "pathe";
import { freePort } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { uplinkProblem } from "../support/uplink";

const servers: Server[] = [];
const listen = async (server: Server) => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};
let serving: number;
let missing: number;
let untrusted: number;

beforeAll(async () => {
  serving = await listen(createServer((req, res) => res.writeHead(req.url === "/@earendil-works%2fpi-coding-agent" ? 200 : 500).end("{}")));
  missing = await listen(createServer((_req, res) => res.writeHead(404).end()));
  const dir = scratchDir("gss-uplink-");
  const made = spawnSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
    { encoding: "utf8" },
  );
  expect(made.status, made.stderr).toBe(0);
  untrusted = await listen(
    createTlsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => res.end("{}")),
  );
});
afterAll(() => {
  for (const s of servers) s.close();
});

describe("the fixtures' uplink check", () => {
  it("passes a registry that serves the real Pi", async () => {
    expect(await uplinkProblem(`http://127.0.0.1:${serving}/`)).toBeNull();
  });

  it("names a registry that answers, but not with Pi, without its credentials", async () => {
    const problem = await uplinkProblem(`http://user:s3cret@127.0.0.1:${missing}/`);
    expect(problem).toBe(
      `The fixtures cannot proxy the real Pi from npm's configured registry http://127.0.0.1:${missing}/: it answered HTTP 404; check that registry= names a registry that serves @earendil-works/pi-coding-agent, and its credentials.`,
    );
    expect(problem).not.toContain("s3cret");
  });

  it("names a registry that does not answer", async () => {
    const port = await freePort();
    expect(await uplinkProblem(`http://127.0.0.1:${port}/`)).toBe(
      `The fixtures cannot reach npm's configured registry http://127.0.0.1:${port}/ (ECONNREFUSED); check the network, or a proxy, and run again.`,
    );
  });

  it("names an untrusted certificate and the variable that trusts one", async () => {
    expect(await uplinkProblem(`https://127.0.0.1:${untrusted}/`)).toMatch(
      new RegExp(
        `^The fixtures cannot reach npm's configured registry https://127\\.0\\.0\\.1:${untrusted}/: its certificate is not trusted \\([A-Z_]+\\); set NODE_EXTRA_CA_CERTS to your network's CA file and run again\\.$`,
      ),
    );
  });
});
