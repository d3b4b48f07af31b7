/**
 * Secrets never reach what we print (issue 8, defect 2): credentials in a
 * URL are masked, and sent as npm sends them, in a Basic header.
 */
import { describe, expect, it } from "vitest";
import { redactText, redactUrl, splitUrlCredentials } from "../../src/core/secrets";
import { npmrcAuthHeader, npmrcRegistry, registryCredentialsToAuth } from "../../src/core/npmrc";

const basic = (pair: string) => `Basic ${Buffer.from(pair).toString("base64")}`;

describe("redactText", () => {
  it("masks user:password@ in every URL of a message", () => {
    expect(redactText("could not reach http://alice:S3CRET@127.0.0.1:9/gentle-pi; also https://bob@r.test/x")).toBe(
      "could not reach http://***@127.0.0.1:9/gentle-pi; also https://***@r.test/x",
    );
  });

  it("masks the values of token-like query parameters and keeps the others", () => {
    expect(redactUrl("https://r.test/pkg?_authToken=abc&page=2&X-Amz-Signature=zz&sig=1")).toBe(
      "https://r.test/pkg?_authToken=***&page=2&X-Amz-Signature=***&sig=***",
    );
  });

  it("masks a proxy URL with credentials inside a sentence", () => {
    expect(redactText("proxy http://u:p@proxy.test:3128 refused")).toBe("proxy http://***@proxy.test:3128 refused");
  });

  it("leaves text without secrets as it is", () => {
    const text = "Node 24.21.0 from http://127.0.0.1:4873/node/v24.21.0/x.tar.gz answered HTTP 404 (a@b is not a URL)";
    expect(redactText(text)).toBe(text);
  });
});

describe("splitUrlCredentials", () => {
  it("takes user and password off the URL into the Basic header npm sends, percent-decoded", () => {
    expect(splitUrlCredentials("http://alice:S3%40CRET@127.0.0.1:9/path/")).toEqual({
      url: "http://127.0.0.1:9/path/",
      authorization: basic("alice:S3@CRET"),
    });
  });

  it("returns a URL without credentials, or one that does not parse, unchanged", () => {
    expect(splitUrlCredentials("https://r.test/")).toEqual({ url: "https://r.test/", authorization: null });
    expect(splitUrlCredentials("not a url")).toEqual({ url: "not a url", authorization: null });
  });
});

describe("registryCredentialsToAuth", () => {
  it("moves a registry's credentials into its per-host _auth key, which pnpm and npm read", () => {
    const out = registryCredentialsToAuth("registry=http://alice:S3CRET@127.0.0.1:4873/\n");
    expect(out).toBe(`registry=http://127.0.0.1:4873/\n//127.0.0.1:4873/:_auth=${Buffer.from("alice:S3CRET").toString("base64")}\n`);
    expect(out).not.toContain("S3CRET");
    expect(npmrcRegistry(out)).toBe("http://127.0.0.1:4873/");
    expect(npmrcAuthHeader(out, "http://127.0.0.1:4873/gentle-pi", {})).toBe(basic("alice:S3CRET"));
  });

  it("does the same for a scoped registry with a path", () => {
    const out = registryCredentialsToAuth("@acme:registry=https://u:p@acme.test/npm\n");
    expect(out).toBe(`@acme:registry=https://acme.test/npm\n//acme.test/npm/:_auth=${Buffer.from("u:p").toString("base64")}\n`);
  });

  it("keeps an explicit auth key for that host and only drops the URL's credentials", () => {
    const text = "registry=https://u:p@r.test/\n//r.test/:_authToken=${NPM_TOKEN}\n";
    expect(registryCredentialsToAuth(text)).toBe("registry=https://r.test/\n//r.test/:_authToken=${NPM_TOKEN}\n");
  });

  it("leaves a registry whose credentials are ${VAR} references for pnpm to expand, and lines without credentials", () => {
    const text = "registry=https://${USER}:${PASS}@r.test/\nproxy=http://proxy.test:3128\n";
    expect(registryCredentialsToAuth(text)).toBe(text);
    expect(registryCredentialsToAuth("")).toBe("");
  });
});
