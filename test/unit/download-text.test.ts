/** fetchBoundedText (release assets, registry metadata) against the mirror: the same transport rules as downloads. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { httpClient } from "../../src/io/http-client";
import { startMirror, type Mirror } from "../support/mirror";

const PATH = "releases/v4.1.0/gentle-shell-distribution.json";
const text = JSON.stringify({ shell: "4.1.0", filler: "x".repeat(200_000) });
const options = { name: "gentle-shell-distribution.json", maxBytes: 1024 * 1024, backoffMs: 5 };

let root: string;
let mirror: Mirror;
const url = () => `${mirror.url}/${PATH}`;
const http = httpClient({ role: "installer", target: "linux-x64", env: {} });
const requests = () => mirror.requests.filter((r) => r.path === PATH);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "gss-text-mirror-"));
  await fs.mkdir(join(root, "releases", "v4.1.0"), { recursive: true });
  await fs.writeFile(join(root, PATH), text);
  mirror = await startMirror({ root });
});
afterAll(async () => {
  await mirror.stop();
  await fs.rm(root, { recursive: true, force: true });
});
afterEach(() => {
  mirror.clearFaults();
  mirror.requests.length = 0;
});

describe("the HTTP client's fetchText (fetchBoundedText)", () => {
  it("reads the text, asking for identity encoding", async () => {
    expect(await http.fetchText(url(), options)).toBe(text);
    expect(requests().map((r) => r.acceptEncoding)).toEqual(["identity"]);
  });

  it("retries a 500 and a truncation, then reads the text", async () => {
    mirror.setFault(PATH, { kind: "status", status: 500, times: 1 });
    expect(await http.fetchText(url(), options)).toBe(text);
    mirror.setFault(PATH, { kind: "truncate", afterBytes: 100, times: 1 });
    expect(await http.fetchText(url(), options)).toBe(text);
    expect(requests()).toHaveLength(4);
  });

  it("gives up after the bounded attempts, naming the asset", async () => {
    mirror.setFault(PATH, { kind: "status", status: 502 });
    await expect(http.fetchText(url(), { ...options, attempts: 2 })).rejects.toThrow(
      /answered HTTP 502 for gentle-shell-distribution\.json \(gave up after 2 attempts\)/,
    );
    expect(requests()).toHaveLength(2);
  });

  it("404: not retried, with its status", async () => {
    mirror.setFault(PATH, { kind: "status", status: 404 });
    await expect(http.fetchText(url(), options)).rejects.toMatchObject({ status: 404, message: expect.stringContaining("was not found") });
    expect(requests()).toHaveLength(1);
  });

  it("refuses a gzip-encoded body, a body over the cap and a redirect to another host, without retrying", async () => {
    mirror.setFault(PATH, { kind: "gzip" });
    await expect(http.fetchText(url(), options)).rejects.toThrow(/gzip-encoded; only identity is accepted/);
    mirror.clearFaults();
    await expect(http.fetchText(url(), { ...options, maxBytes: 1000 })).rejects.toThrow(/is larger than 1000 bytes/);
    mirror.setFault(PATH, { kind: "redirect" });
    await expect(http.fetchText(url(), options)).rejects.toThrow(/redirected gentle-shell-distribution\.json to 127\.0\.0\.1:\d+, which is not allowed/);
    expect(requests()).toHaveLength(3);
  });
});
