import { describe, expect, it } from "vitest";
import { proxyFor } from "../../src/core/proxy";

describe("proxyFor: the proxy a request to a URL goes through", () => {
  it("is HTTP_PROXY for http: and HTTPS_PROXY for https:, in either case, and none when unset", () => {
    const env = { HTTP_PROXY: "http://p1:8080", https_proxy: "http://p2:8080" };
    expect(proxyFor("http://mirror.example/x", env)).toBe("http://p1:8080");
    expect(proxyFor("https://mirror.example/x", env)).toBe("http://p2:8080");
    expect(proxyFor("https://mirror.example/x", {})).toBeNull();
    expect(proxyFor("file:///x", env)).toBeNull();
    expect(proxyFor("not a url", env)).toBeNull();
  });

  it("is none when NO_PROXY lists the host, a domain it ends in, or *, with a matching port when one is given", () => {
    const base = { HTTP_PROXY: "http://p:1" };
    expect(proxyFor("http://127.0.0.1:4873/", { ...base, NO_PROXY: "localhost, 127.0.0.1" })).toBeNull();
    expect(proxyFor("http://a.corp.example/", { ...base, NO_PROXY: ".corp.example" })).toBeNull();
    expect(proxyFor("http://a.corp.example/", { ...base, no_proxy: "corp.example" })).toBeNull();
    expect(proxyFor("http://a.corp.example/", { ...base, NO_PROXY: "*" })).toBeNull();
    expect(proxyFor("http://127.0.0.1:4873/", { ...base, NO_PROXY: "127.0.0.1:4873" })).toBeNull();
    expect(proxyFor("http://127.0.0.1:4873/", { ...base, NO_PROXY: "127.0.0.1:80" })).toBe("http://p:1");
    expect(proxyFor("http://notcorp.example/", { ...base, NO_PROXY: "corp.example" })).toBe("http://p:1");
    expect(proxyFor("http://[::1]:9/", { ...base, NO_PROXY: "[::1]:9" })).toBeNull();
    expect(proxyFor("http://127.0.0.1/", { ...base, NO_PROXY: "" })).toBe("http://p:1");
  });
});
