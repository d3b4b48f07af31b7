/**
 * Who a request says it is, and the sentence for a certificate nobody here
 * trusts (issue 28; io/http-get.ts).
 */
import { describe, expect, it } from "vitest";
import { isCertificateError, isProxyAuthError, proxyAuthRequired, untrustedCertificate } from "../../src/io/http-get";
import { userAgentFor } from "../../src/io/http-client";

describe("the User-Agent", () => {
  it("names the installer, or the launcher's engine, with the version, Node's version and the target", () => {
    expect(userAgentFor("installer", "darwin-arm64")).toMatch(/^gentle-shell-setup\/\S+ node\/\d+\.\d+\.\d+ darwin-arm64$/);
    expect(userAgentFor("engine", "win-x64")).toMatch(/^gentle-shell\/\S+ node\//);
  });
});

describe("an untrusted certificate", () => {
  it("is told apart from other TLS failures by its code", () => {
    for (const code of ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"]) {
      expect(isCertificateError(Object.assign(new Error("x"), { code }))).toBe(true);
    }
    for (const code of ["CERT_HAS_EXPIRED", "ERR_TLS_CERT_ALTNAME_INVALID", "ECONNRESET", undefined]) {
      expect(isCertificateError(Object.assign(new Error("x"), { code }))).toBe(false);
    }
    expect(isCertificateError(null)).toBe(false);
  });

  it("is one sentence naming the host and the three ways to trust its authority, never the URL's secrets", () => {
    const text = untrustedCertificate("https://alice:s3cret@artifacts.corp.example:8443/npm/");
    expect(text).toBe(
      "the certificate of artifacts.corp.example:8443 is signed by an authority this machine's Node does not trust; if your network inspects TLS, add its root certificate to the system store, or set NODE_EXTRA_CA_CERTS to it, or cafile= in your .npmrc for the registry",
    );
    expect(text).not.toContain("s3cret");
  });
});

describe("a proxy that wants credentials (HTTP 407)", () => {
  it("names the proxy with its password masked, and where the credentials go", () => {
    const env = { HTTPS_PROXY: "http://ana:pw@proxy.test:3128", HTTP_PROXY: "http://proxy.test:3128" };
    expect(proxyAuthRequired("https://r.test/x", env)).toBe(
      "the proxy http://***@proxy.test:3128 refused the user name and password in HTTPS_PROXY (HTTP 407); correct them there",
    );
    expect(proxyAuthRequired("http://r.test/x", env)).toBe(
      "the proxy http://proxy.test:3128 asks for a user name and password (HTTP 407); put them in HTTP_PROXY as user:password@ before the proxy's host",
    );
  });

  it("reads a tunnel the proxy refused with 407, and only that, from Node's error", () => {
    const tunnel = (message: string) => Object.assign(new Error(message), { code: "ERR_PROXY_TUNNEL" });
    expect(isProxyAuthError(tunnel("Failed to establish tunnel to r.test:443 via http://p:3128/: HTTP/1.1 407 Proxy Authentication Required"))).toBe(true);
    expect(isProxyAuthError(tunnel("Failed to establish tunnel to r.test:443 via http://p:3128/: HTTP/1.1 502 Bad Gateway"))).toBe(false);
    expect(isProxyAuthError(Object.assign(new Error("407"), { code: "ECONNRESET" }))).toBe(false);
  });
});
