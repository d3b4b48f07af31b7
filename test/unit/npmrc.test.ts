import { describe, expect, it } from "vitest";
import { has, requires } from "../support/capabilities";
import { filterNpmrc, npmrcAuthHeader, npmrcRegistry, npmrcTrust, npmrcVariables, packageRegistry } from "../../src/core/npmrc";

describe("filterNpmrc", () => {
  it("keeps registry, scoped registries, per-host auth, proxies and TLS keys verbatim", () => {
    const input = [
      "registry=https://npm.example.test/",
      "@acme:registry=https://acme.example.test/npm/",
      "//npm.example.test/:_authToken=${NPM_TOKEN}",
      "//acme.example.test/npm/:_auth=dXNlcjpwYXNz",
      "//acme.example.test/npm/:username=bob",
      "//acme.example.test/npm/:_password=cGFzcw==",
      "//acme.example.test/npm/:certfile=/etc/cert.pem",
      "//acme.example.test/npm/:keyfile=/etc/key.pem",
      "proxy=http://proxy.test:3128",
      "https-proxy=http://proxy.test:3128",
      "noproxy=localhost",
      "no-proxy=127.0.0.1",
      "ca=-----BEGIN CERTIFICATE-----",
      "ca[]=second",
      "cafile=/etc/ca.pem",
      "strict-ssl=false",
    ];
    expect(filterNpmrc(input.join("\n"))).toBe(input.join("\n") + "\n");
  });

  it("drops every other key", () => {
    const out = filterNpmrc(
      [
        "prefix=/usr/local",
        "ignore-scripts=true",
        "minimum-release-age=9999",
        "script-shell=/bin/evil",
        "registry=https://r.test/",
        "node-options=--require x",
        "//r.test/:always-auth=true",
      ].join("\n"),
    );
    expect(out).toBe("registry=https://r.test/\n");
  });

  it("drops comments and handles CRLF line ends", () => {
    expect(filterNpmrc("# registry=https://no.test/\r\n; proxy=x\r\nregistry=https://r.test/\r\n")).toBe("registry=https://r.test/\n");
  });

  it("handles quoted keys", () => {
    const line = '"//r.test/:_authToken"=abc';
    expect(filterNpmrc(`${line}\n"prefix"=/x\n`)).toBe(`${line}\n`);
  });

  it("drops everything from the first [section] on", () => {
    expect(filterNpmrc("registry=https://a.test/\n[section]\nregistry=https://b.test/\nproxy=x\n")).toBe("registry=https://a.test/\n");
  });

  it("keeps ${VAR} references unexpanded and lists them", () => {
    const out = filterNpmrc("//r.test/:_authToken=${NPM_TOKEN}\n");
    expect(out).toContain("${NPM_TOKEN}");
    expect(npmrcVariables(out)).toEqual(["NPM_TOKEN"]);
  });

  it("returns nothing for a file with nothing to keep", () => {
    expect(filterNpmrc("")).toBe("");
    expect(filterNpmrc("save-exact=true\n")).toBe("");
  });
});

describe("registry and auth from the filtered npmrc", () => {
  it("reads the registry with a trailing slash", () => {
    expect(npmrcRegistry("registry=http://127.0.0.1:4873\n")).toBe("http://127.0.0.1:4873/");
    expect(npmrcRegistry("")).toBeNull();
  });

  it("expands ${VAR} in the registry and a scope's registry, as npm and pnpm do; an unset one stays as written", () => {
    const text = "registry=${CORP_REGISTRY}\n@earendil-works:registry=${PI_MIRROR}/pi\n";
    expect(npmrcRegistry(text, { CORP_REGISTRY: "https://mirror.test/repo" })).toBe("https://mirror.test/repo/");
    expect(packageRegistry(text, "@earendil-works/pi-coding-agent", "x", { PI_MIRROR: "https://pi.test" })).toBe("https://pi.test/pi/");
    expect(npmrcRegistry(text, {})).toBe("${CORP_REGISTRY}/");
  });

  it("sends the longest matching per-host token, expanded from the environment", () => {
    const text = "//r.test/:_authToken=short\n//r.test/team/:_authToken=${TEAM_TOKEN}\n";
    expect(npmrcAuthHeader(text, "https://r.test/team/gentle-pi", { TEAM_TOKEN: "t1" })).toBe("Bearer t1");
    expect(npmrcAuthHeader(text, "https://r.test/gentle-pi", {})).toBe("Bearer short");
    expect(npmrcAuthHeader(text, "https://other.test/gentle-pi", {})).toBeNull();
  });
});

describe("userNpmrc and writeNpmrcAuth", async () => {
  const { promises: fs } = await import("node:fs");
  const { execFileSync } = await import("node:child_process");
  const { scratchDir } = await import("../support/scratch");
  const { join } = await import("pathe");
  const { userNpmrc, writeNpmrcAuth } = await import("../../src/install/npm-settings");
  const { prefixLayout } = await import("../../src/core/layout");
  const { productionPins } = await import("../../src/pins/production");
  const home = scratchDir("gss-npmrc-");

  it("reads ~/.npmrc by default", async () => {
    await fs.writeFile(join(home, ".npmrc"), "registry=https://r.test/\n");
    expect(await userNpmrc({}, home)).toEqual({ path: join(home, ".npmrc"), text: "registry=https://r.test/\n" });
  });

  it("reads NPM_CONFIG_USERCONFIG in any case when it is absolute", async () => {
    const other = join(home, "other-npmrc");
    await fs.writeFile(other, "registry=https://other.test/\n");
    expect((await userNpmrc({ npm_Config_UserConfig: other }, home)).text).toBe("registry=https://other.test/\n");
    expect((await userNpmrc({ NPM_CONFIG_USERCONFIG: "relative/npmrc" }, home)).path).toBe(join(home, ".npmrc"));
  });

  it("treats a missing file as empty", async () => {
    expect((await userNpmrc({ NPM_CONFIG_USERCONFIG: join(home, "missing") }, home)).text).toBe("");
  });

  it("treats a FIFO as empty without waiting on it", async (ctx) => {
    requires(ctx, "fifos");
    const fifo = join(home, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect((await userNpmrc({ NPM_CONFIG_USERCONFIG: fifo }, home)).text).toBe("");
  });

  it("refuses a file over 1 MiB with a message that says what to do", async () => {
    const big = join(home, "big");
    await fs.writeFile(big, "#".repeat(1024 * 1024 + 1));
    await expect(userNpmrc({ NPM_CONFIG_USERCONFIG: big }, home)).rejects.toThrow(/larger than 1 MiB/);
  });

  it("writes pnpm/config/npmrc with mode 0600 through one rename, whatever the umask", async () => {
    const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
    const old = process.umask(0);
    try {
      await writeNpmrcAuth(layout, "//r.test/:_authToken=${NPM_TOKEN}\n");
    } finally {
      process.umask(old);
    }
    if (has("posix-modes")) expect((await fs.stat(layout.pnpm.npmrc)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(layout.pnpm.npmrc, "utf8")).toBe("//r.test/:_authToken=${NPM_TOKEN}\n");
    expect((await fs.readdir(layout.pnpm.config)).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });
});

describe("packageRegistry", () => {
  it("is the scope's registry for a scoped package, else the fallback", () => {
    const text = "registry=http://a.example.test/\n@earendil-works:registry=http://b.example.test/npm\n@other:registry=http://c.example.test/\n";
    expect(packageRegistry(text, "@earendil-works/pi-coding-agent", "http://a.example.test/")).toBe("http://b.example.test/npm/");
    expect(packageRegistry(text, "gentle-pi", "http://a.example.test/")).toBe("http://a.example.test/");
    expect(packageRegistry("registry=http://a.example.test/\n", "@earendil-works/pi-coding-agent", "http://z.example.test/")).toBe("http://z.example.test/");
  });
});

describe("npmrcTrust: the certificate settings npm applies to the registry", () => {
  it("reads ca, ca[] (npm's \\n escapes made newlines) and cafile (variables expanded); strict-ssl is not read", () => {
    const text = [
      'ca="-----BEGIN CERTIFICATE-----\\nAAA\\n-----END CERTIFICATE-----"',
      "ca[]=-----BEGIN CERTIFICATE-----\\nBBB\\n-----END CERTIFICATE-----",
      "cafile=${HOME}/corp-root.pem",
      "strict-ssl=false",
    ].join("\n");
    expect(npmrcTrust(text, { HOME: "/home/u" })).toEqual({
      ca: ["-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----"],
      cafile: "/home/u/corp-root.pem",
    });
  });

  it("names nothing when the settings do not (ca=null is npm's way of saying none)", () => {
    expect(npmrcTrust("registry=https://r.test/\nca=null\nstrict-ssl=true\n")).toEqual({ ca: [], cafile: null });
  });
});
