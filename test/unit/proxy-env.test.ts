/**
 * The proxy variables as Node's proxy support reads them, and the one
 * sentence for a value Node cannot use (src/core/proxy-env.ts; issue 39,
 * defect 2: Node's own error printed the URL, password and all). The rules
 * are checked against the pinned Node 24.21.0 itself: every value here is
 * given to its http.setGlobalProxyFromEnv, which accepts or refuses it as
 * --use-env-proxy did at Node's start.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { namesAProxy, proxyVariableProblem, proxyVariables, shownProxy } from "../../src/core/proxy-env";
import { pinnedNode } from "../support/toolchain";

/** Letters either side of the special character: neither may be printed. */
const PIECES = ["Kq7wPw", "Vz3xPw"] as const;
const hostile = (c: string, user = "carol") => `http://${user}:${PIECES[0]}${c}${PIECES[1]}@127.0.0.1:3128`;

const ACCEPTED = [
  "http://127.0.0.1:3128",
  "http://proxy.corp:3128/",
  "https://carol:s3cret@proxy.corp",
  "HTTP://127.0.0.1:1",
  "http://carol@127.0.0.1:1",
  "http://carol:p%23ss%2F%3F%5C%25@127.0.0.1:1",
  `http://carol:${PIECES[0]}"' <>@@${PIECES[1]}@127.0.0.1:1`,
  "http://[::1]:3128",
  "socks5://127.0.0.1:1080",
  "http://127.0.0.1:1/?",
];
const REFUSED = [
  hostile("#"),
  hostile("/"),
  hostile("?"),
  hostile("\\"),
  // A password whose first part reads as a port: the host is carol, and the rest a path, query or fragment.
  "http://carol:1234/Kq7wPw@127.0.0.1:1",
  "http://carol:1234#Kq7wPw@127.0.0.1:1",
  "http://carol:1234?Kq7wPw@127.0.0.1:1",
  "http://carol:50%off@127.0.0.1:1",
  "http://carol%zz@127.0.0.1:1",
  "127.0.0.1:3128",
  "proxy.corp:3128",
  "ftp://127.0.0.1:21",
  "http://127.0.0.1:1/path",
  "http://127.0.0.1:1?x=1",
  "http://[::1",
  "http://x y:1",
  " ",
  "http://127.0.0.1:1\nx",
];

/** What Node 24.21.0 says of each value: null when its http.setGlobalProxyFromEnv takes it, else its error's code. */
let node: Record<string, string | null>;
beforeAll(async () => {
  const script = `
    const http = require("node:http");
    const out = {};
    for (const value of JSON.parse(process.argv[1])) {
      try {
        http.setGlobalProxyFromEnv({ HTTP_PROXY: value, HTTPS_PROXY: value })();
        out[value] = null;
      } catch (error) {
        out[value] = error.code || error.name;
      }
    }
    process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(await pinnedNode(), ["-e", script, JSON.stringify([...ACCEPTED, ...REFUSED])], { encoding: "utf8", env: {} });
  expect(r.status, r.stderr).toBe(0);
  node = JSON.parse(r.stdout);
});

describe("proxyVariableProblem", () => {
  it.each(ACCEPTED)("takes %s, as Node does", (value) => {
    expect(node[value]).toBeNull();
    expect(proxyVariableProblem({ HTTPS_PROXY: value }, "linux")).toBeNull();
  });

  it.each(REFUSED)("refuses %j in one sentence, as Node refuses it", (value) => {
    expect(node[value]).not.toBeNull();
    const said = proxyVariableProblem({ HTTPS_PROXY: value }, "linux");
    expect(said).toMatch(/^HTTPS_PROXY is not a proxy URL Node can use: .+ in HTTPS_PROXY(, or unset it)?$/);
    expect(said!.split("\n")).toHaveLength(1);
    for (const piece of PIECES) expect(said).not.toContain(piece);
  });

  it("says what is wrong and what to do, the value masked", () => {
    expect(proxyVariableProblem({ HTTP_PROXY: hostile("#") }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: http://***@127.0.0.1:3128 is no URL with a valid host and port, as when a password holds #, /, ? or \\; " +
        "percent-encode each of its special characters (# as %23, / as %2F, ? as %3F, \\ as %5C, @ as %40, % as %25) in HTTP_PROXY",
    );
    expect(proxyVariableProblem({ HTTP_PROXY: "http://carol:1234/Kq7wPw@127.0.0.1:1" }, "linux")).toMatch(
      /^HTTP_PROXY is not a proxy URL Node can use: http:\/\/\*\*\*@127\.0\.0\.1:1 holds more than the proxy's host and port, as when a password holds/,
    );
    expect(proxyVariableProblem({ HTTP_PROXY: "http://carol:50%off@127.0.0.1:1" }, "linux")).toMatch(/holds a % that starts no percent-encoded character/);
    expect(proxyVariableProblem({ HTTP_PROXY: "127.0.0.1:3128" }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: 127.0.0.1:3128 names no scheme; write the proxy as http://host:port in HTTP_PROXY",
    );
    expect(proxyVariableProblem({ HTTP_PROXY: "ftp://127.0.0.1:21" }, "linux")).toMatch(/starts with ftp:, not http:\/\/ or https:\/\//);
    // A host name before the port reads as a scheme to the parser: it is named no scheme all the same.
    expect(proxyVariableProblem({ HTTP_PROXY: "proxy.corp:3128" }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: proxy.corp:3128 names no scheme; write the proxy as http://host:port in HTTP_PROXY",
    );
    // A path with no @ in the value is no password's doing.
    expect(proxyVariableProblem({ HTTP_PROXY: "http://127.0.0.1:1/path" }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: http://127.0.0.1:1/path holds more than the proxy's host and port; write the proxy as http://host:port, with no path, ? or #, in HTTP_PROXY",
    );
    expect(proxyVariableProblem({ HTTP_PROXY: " " }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: it is blank; write the proxy as http://host:port in HTTP_PROXY, or unset it",
    );
    // A line break is never printed: the sentence stays one line.
    expect(proxyVariableProblem({ HTTP_PROXY: "http://127.0.0.1:1\nx" }, "linux")).toBe(
      "HTTP_PROXY is not a proxy URL Node can use: it holds a line break; write the proxy's URL on one line in HTTP_PROXY",
    );
  });

  it("reads the variables Node reads: the lower-case name first, an empty one as unset, exact names on POSIX", () => {
    // Node takes http_proxy over HTTP_PROXY: a broken HTTP_PROXY beside a good http_proxy is never used.
    expect(proxyVariableProblem({ http_proxy: "http://127.0.0.1:1", HTTP_PROXY: hostile("#") }, "linux")).toBeNull();
    expect(proxyVariableProblem({ http_proxy: hostile("#"), HTTP_PROXY: "http://127.0.0.1:1" }, "linux")).toMatch(/^http_proxy /);
    expect(proxyVariableProblem({ http_proxy: "", HTTP_PROXY: hostile("#") }, "linux")).toMatch(/^HTTP_PROXY /);
    expect(proxyVariableProblem({ https_proxy: hostile("/") }, "darwin")).toMatch(/^https_proxy /);
    // POSIX names are exact: Node reads no Http_Proxy there.
    expect(proxyVariableProblem({ Http_Proxy: hostile("#") }, "linux")).toBeNull();
    expect(namesAProxy({ Http_Proxy: "http://127.0.0.1:1", NO_PROXY: "*" }, "linux")).toBe(false);
    expect(namesAProxy({ HTTPS_PROXY: "" }, "linux")).toBe(false);
    expect(namesAProxy({ https_proxy: "http://127.0.0.1:1" }, "linux")).toBe(true);
  });

  it("reads Windows variables in any case, named as Windows shows them", () => {
    expect(proxyVariables({ Http_Proxy: "http://127.0.0.1:1" }, "win32")).toEqual([{ name: "HTTP_PROXY", value: "http://127.0.0.1:1" }]);
    expect(proxyVariableProblem({ hTTps_PROXY: hostile("\\") }, "win32")).toMatch(
      /^HTTPS_PROXY is not a proxy URL Node can use: http:\/\/\*\*\*@127\.0\.0\.1:3128 /,
    );
    expect(namesAProxy({ Path: "C:\\Windows" }, "win32")).toBe(false);
  });
});

describe("shownProxy", () => {
  it("masks everything up to the last @, whatever the parser made of it", () => {
    for (const c of ["#", "/", "?", "\\", "@", '"', " ", "%40"]) expect(shownProxy(hostile(c))).toBe("http://***@127.0.0.1:3128");
    expect(shownProxy("http://carol:1234/Kq7wPw@127.0.0.1:1")).toBe("http://***@127.0.0.1:1");
    expect(shownProxy("carol:Kq7wPw@proxy.corp:3128")).toBe("***@proxy.corp:3128");
  });

  it("shows a proxy without credentials as it is, and masks a query secret after the host", () => {
    expect(shownProxy("http://127.0.0.1:3128")).toBe("http://127.0.0.1:3128");
    expect(shownProxy("http://carol:pw@127.0.0.1:1/?token=Kq7wPw")).toBe("http://***@127.0.0.1:1/?token=***");
  });
});
