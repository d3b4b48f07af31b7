/**
 * Secrets never reach what we print (issue 8, defect 2): credentials in a
 * URL are masked, and sent as npm sends them, in a Basic header.
 */
import { describe, expect, it } from "vitest";
import { redactText, redactUrl, splitUrlCredentials, urlHasCredentials } from "../../src/core/secrets";
import { proxyAuthRequired } from "../../src/io/http-get";
import { npmrcAuthHeader, npmrcRegistry, registryCredentialsToAuth } from "../../src/core/npmrc";
import { outputChannel } from "../../src/io/console";
import { capturedStream, streamHost } from "../support/host";

const basic = (pair: string) => `Basic ${Buffer.from(pair).toString("base64")}`;

describe("redactText", () => {
  it("masks user:password@ in every URL of a message", () => {
    expect(redactText("could not reach http://alice:S3CRET@127.0.0.1:9/gentle-pi; also https://bob@r.test/x")).toBe(
      "could not reach http://***@127.0.0.1:9/gentle-pi; also https://***@r.test/x",
    );
  });

  it("masks the values of token-like query parameters and keeps the others", () => {
    expect(redactText("https://r.test/pkg?_authToken=abc&page=2&X-Amz-Signature=zz&sig=1")).toBe(
      "https://r.test/pkg?_authToken=***&page=2&X-Amz-Signature=***&sig=***",
    );
  });

  it("masks a proxy URL with credentials inside a sentence", () => {
    expect(redactText("proxy http://u:p@proxy.test:3128 refused")).toBe("proxy http://***@proxy.test:3128 refused");
  });

  it("masks every credential-like query parameter of signed and tokened URLs", () => {
    const url =
      "https://cdn.test/a.tgz?X-Amz-Credential=AK%2F1&X-Amz-Security-Token=T1&access_token=T2&api_key=K1&apikey=K2&key=K3&" +
      "sv=2024&sig=S1&password=P1&pwd=P2&session_id=S2&jwt=J1&client_secret=C1&auth=A1&private-key=K4&page=3&id=7";
    const masked = redactText(url);
    for (const secret of ["AK%2F1", "T1", "T2", "K1", "K2", "K3", "S1", "P1", "P2", "S2", "J1", "C1", "A1", "K4"]) {
      expect(masked).not.toContain(`=${secret}`);
    }
    expect(masked).toContain("sv=2024&");
    expect(masked).toContain("&page=3&id=7");
  });

  it("masks npmrc credential keys and Authorization headers written out in a line", () => {
    expect(redactText("//r.test/:_authToken=npm_abc123 and //r.test/:_auth=YWxpY2U6cA== and //r.test/:_password=cA==")).toBe(
      "//r.test/:_authToken=*** and //r.test/:_auth=*** and //r.test/:_password=***",
    );
    expect(redactText('headers: {"authorization":"Bearer abc.def"} Proxy-Authorization: Basic YWxpY2U6cA==')).toBe(
      'headers: {"authorization":"Bearer ***"} Proxy-Authorization: Basic ***',
    );
  });

  it("masks a proxy's credentials however the proxy URL is written", () => {
    expect(redactText("HTTPS_PROXY=http://bob:pr0xy@proxy.test:3128/")).toBe("HTTPS_PROXY=http://***@proxy.test:3128/");
    expect(redactText("tunnel through https://bob:p%40ss@[::1]:8443 failed")).toBe("tunnel through https://***@[::1]:8443 failed");
    expect(redactText("socks5://u:p@127.0.0.1:1080")).toBe("socks5://***@127.0.0.1:1080");
  });

  it("leaves text without secrets as it is", () => {
    const text = "Node 24.21.0 from http://127.0.0.1:4873/node/v24.21.0/x.tar.gz answered HTTP 404 (a@b is not a URL)";
    expect(redactText(text)).toBe(text);
    const pnpm = "+ gentle-pi 4.1.0 (npm:gentle-pi@4.1.0) from http://127.0.0.1:4873/?page=2&name=pi; the author: Gentle";
    expect(redactText(pnpm)).toBe(pnpm);
  });
});

/**
 * Issue 39, defect 2: a URL's credentials are read as the HTTP client reads
 * them (WHATWG URL), whatever they hold. Each password is two pieces around
 * the character under test; neither piece may be printed.
 */
describe("redactText and redactUrl read a URL as the HTTP client does", () => {
  const PIECES = ["Kq7w", "Vz3x"] as const;
  const HOSTILE: Record<string, string> = {
    "a double quote": '"',
    "a single quote": "'",
    "a less-than sign": "<",
    "a greater-than sign": ">",
    "a space": " ",
    "an @": "@",
    "a percent-encoded @": "%40",
    "a #": "#",
    "a /": "/",
    "a ?": "?",
    "a backslash": "\\",
    "two @ and quotes": `@"'@`,
  };
  const noPiece = (text: string) => {
    for (const piece of PIECES) expect(text).not.toContain(piece);
  };

  for (const [name, c] of Object.entries(HOSTILE)) {
    it(`masks a proxy password holding ${name}, alone, in our 407 sentence and quoted by Node`, () => {
      for (const host of ["127.0.0.1:3128", "[::1]:3128", "[2001:db8::7]:8080", "proxy.test"]) {
        const url = `http://carol:${PIECES[0]}${c}${PIECES[1]}@${host}`;
        expect(redactUrl(url)).toBe(`http://***@${host}`);
        expect(redactText(url)).toBe(`http://***@${host}`);
        const sentence = `the proxy ${url} refused the user name and password in HTTP_PROXY (HTTP 407); correct them there`;
        expect(redactText(sentence)).toBe(`the proxy http://***@${host} refused the user name and password in HTTP_PROXY (HTTP 407); correct them there`);
        expect(redactText(`Invalid proxy URL: ${url}`)).toBe(`Invalid proxy URL: http://***@${host}`);
        noPiece(redactText(`{"error":"tunnel via ${url}/ failed"}`));
      }
    });
  }

  it("masks the user name with the password, and a user name alone", () => {
    expect(redactText('via https://Kq7w"Vz3x@proxy.test:3128/ now')).toBe("via https://***@proxy.test:3128/ now");
    expect(redactUrl("http://Kq7w:@127.0.0.1:1")).toBe("http://***@127.0.0.1:1");
  });

  it("masks the user information of a URL without slashes, which WHATWG reads for http: and https:", () => {
    expect(new URL("http:carol:Kq7w@127.0.0.1:3128").password).toBe("Kq7w");
    expect(redactText("proxy http:carol:Kq7w@127.0.0.1:3128 refused")).toBe("proxy http:***@127.0.0.1:3128 refused");
    expect(redactText("HTTP: 407, see a@b")).toBe("HTTP: 407, see a@b");
  });

  it("keeps a sentence whose @ no host follows, and a URL whose path holds an @", () => {
    const hint =
      "the proxy http://127.0.0.1:3128 asks for a user name and password (HTTP 407); put them in HTTP_PROXY as user:password@ before the proxy's host";
    expect(redactText(hint)).toBe(hint);
    const path = "fetched http://127.0.0.1:4873/@acme%2fpi/-/pi-1.0.0.tgz and npm:gentle-pi@4.1.0";
    expect(redactText(path)).toBe(path);
  });

  it("masks a secret query value to the next & or #, whatever it holds, in free text up to whitespace", () => {
    expect(redactText('https://m.test/x?token=AB"CD answered HTTP 403')).toBe("https://m.test/x?token=*** answered HTTP 403");
    expect(redactText("https://m.test/x?token=AB'C<D>E#part&sig=1")).toBe("https://m.test/x?token=***#part&sig=***");
    expect(redactText("https://m.test/x?page=2&access_token=AB;CD&id=7")).toBe("https://m.test/x?page=2&access_token=***&id=7");
    expect(redactText("https://m.test/x?page=2;token=ABCD")).toBe("https://m.test/x?page=2;token=***");
    expect(redactUrl('https://m.test/x?token=AB" CD EF&page=2#top')).toBe("https://m.test/x?token=***&page=2#top");
    expect(redactUrl("https://m.test/x?api%5Fkey=AB%40CD")).toBe("https://m.test/x?api%5Fkey=***");
  });

  it("masks a query secret and user information that run into each other as one", () => {
    expect(redactUrl("http://m.test?token=AB@CD")).toBe("http://***");
    noPiece(redactText("http://Kq7w?token=x@Vz3x ok"));
  });

  it("masks a URL glued to what comes before it", () => {
    expect(redactText("see1http://carol:Kq7w@h.test/ and -https://u:Vz3x@h.test/")).toBe("see1http://***@h.test/ and -https://***@h.test/");
  });

  it("reads a long line of many URLs once, not once per URL", () => {
    const line = `${"http://h.test?x=1 ".repeat(50_000)}http://u:Kq7w@h.test/`;
    const many = `${"http://127.0.0.1:9 ".repeat(50_000)}\n`.repeat(2);
    const started = Date.now();
    expect(redactText(line)).toContain("http://***@h.test/");
    expect(redactText(many)).toBe(many);
    expect(redactUrl(line)).not.toContain("Kq7w");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("says whether a URL carries credentials as the client reads it", () => {
    expect(urlHasCredentials('http://carol:Kq7w"Vz3x@127.0.0.1:1')).toBe(true);
    expect(urlHasCredentials("http://carol:Kq7w#Vz3x@127.0.0.1:1")).toBe(true);
    expect(urlHasCredentials("http://127.0.0.1:1/@acme")).toBe(false);
    expect(urlHasCredentials("http://127.0.0.1:1")).toBe(false);
  });

  it("the 407 sentence names the proxy masked and knows that it had credentials", () => {
    const env = { HTTP_PROXY: 'http://carol:Kq7w"@Vz3x@127.0.0.1:3128', NO_PROXY: "" };
    expect(proxyAuthRequired("http://m.test/", env)).toBe(
      "the proxy http://***@127.0.0.1:3128 refused the user name and password in HTTP_PROXY (HTTP 407); correct them there",
    );
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

describe("the printers", () => {
  it("mask every line the host prints, in every mode", () => {
    const { host, stdout, stderr } = streamHost();
    host.out("registry http://alice:S3CRET@r.test/");
    host.err("proxy https://bob:S3CRET@p.test:3128 refused");
    host.withMode({ quiet: true }).out("Artifacts from: https://cdn.test/x?token=S3CRET");
    expect(stdout()).toBe("registry http://***@r.test/\nArtifacts from: https://cdn.test/x?token=***\n");
    expect(stderr()).toBe("proxy https://***@p.test:3128 refused\n");
  });

  it("mask what is not a line too: a panel's or a bar's drawing", () => {
    const out = capturedStream();
    const err = capturedStream();
    const channel = outputChannel({ stdout: out.stream, stderr: err.stream });
    channel.raw("stdout")("\u001b[2A\u001b[0J│ from http://alice:S3CRET@r.test/ │\n");
    channel.raw("stderr")("pnpm [=====] https://cdn.test/x?token=S3CRET");
    expect(out.text()).toBe("\u001b[2A\u001b[0J│ from http://***@r.test/ │\n");
    expect(err.text()).toBe("pnpm [=====] https://cdn.test/x?token=***");
  });
});
