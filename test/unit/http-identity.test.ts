/**
 * Who a request says it is, and the sentence for a certificate nobody here
 * trusts (issue 28; io/http-get.ts).
 */
import { describe, expect, it } from "vitest";
import { isCertificateError, untrustedCertificate, userAgent } from "../../src/io/http-get";

describe("the User-Agent", () => {
  it("names the installer, or the launcher's engine, with the version, Node's version and the target", () => {
    expect(userAgent(["node", "gentle-shell-setup", "install"])).toMatch(/^gentle-shell-setup\/\S+ node\/\d+\.\d+\.\d+ (linux|darwin|win)-(x64|arm64)$/);
    expect(userAgent(["node", "engine.cjs", "--gentle-shell-engine", "upgrade"])).toMatch(/^gentle-shell\/\S+ node\//);
    expect(userAgent(["node", "engine.cjs", "--gentle-shell-engine-internal", "functions"])).toMatch(/^gentle-shell\/\S+ node\//);
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
