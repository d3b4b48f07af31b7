/**
 * verifiedDownload and fetchArtifact against the artifact mirror (in this
 * process, with its fault injection): every rule of the spec's Runtimes
 * paragraph, each fault naming the artifact and leaving nothing behind.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "pathe";
import { requires } from "../support/capabilities";
import { scratchDir } from "../support/scratch";
import { sameBytes, type Expected } from "../../src/io/download";
import { httpClient } from "../../src/io/http-client";
import { lineProgress } from "../../src/io/progress";
import { fetchArtifact } from "../../src/install/artifact-fetch";

import { startMirror, type Mirror } from "../support/mirror";

/** The client these downloads go through: the installer's, its default redirect policy (none for the mirror). */
const http = httpClient({ role: "installer", target: "linux-x64", env: {} });

const PATH = "node/v24.21.0/node-v24.21.0-linux-x64.tar.gz";
const body = randomBytes(300 * 1024);
const sha256 = createHash("sha256").update(body).digest("hex");
const NAME = "Node 24.21.0 (linux-x64)";
const pin = (over: Partial<Expected> = {}): Expected => ({ name: NAME, sha256, size: body.length, maxBytes: 1024 * 1024, ...over });
const fast = { backoffMs: 5, stallMs: 1500, timeoutMs: 20_000 };

let root: string;
let mirror: Mirror;
let work: string;

beforeAll(async () => {
  root = scratchDir("gss-download-mirror-");
  await fs.mkdir(join(root, "node", "v24.21.0"), { recursive: true });
  await fs.writeFile(join(root, PATH), body);
  mirror = await startMirror({ root });
});
afterAll(async () => {
  await mirror.stop();
  await fs.rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  mirror.clearFaults();
  mirror.requests.length = 0;
  if (work) await fs.rm(work, { recursive: true, force: true });
});

/** fetchArtifact from the mirror into a fresh folder; the folder must hold only the verified file, or nothing. */
async function fetchInto(expected = pin(), download = {}) {
  work = scratchDir("gss-download-");
  const dir = join(work, "runtime");
  try {
    const file = await fetchArtifact(http, { kind: "mirror", base: mirror.url }, PATH, dir, expected, { download: { ...fast, ...download } });
    return { file, dir };
  } catch (error) {
    expect(await fs.readdir(dir)).toEqual([]);
    throw error;
  }
}

const requests = () => mirror.requests.filter((r) => r.path === PATH);

describe("verifiedDownload from the mirror", () => {
  it("writes the exact bytes, asks for identity encoding, and reports progress as lines", async () => {
    const lines: string[] = [];
    const progress = lineProgress((l) => lines.push(l));
    const { file } = await fetchInto(pin(), { progress: progress.start(NAME) });
    expect(sameBytes(await fs.readFile(file), body)).toBe(true);
    expect(requests().map((r) => r.acceptEncoding)).toEqual(["identity"]);
    expect(lines[0]).toBe(`downloading ${NAME}`);
    expect(lines[1]).toMatch(/^Node 24\.21\.0 \(linux-x64\): 300\.0 KiB verified in \d+\.\d s$/);
  });

  it("refuses an artifact without a pin and asks nothing", async () => {
    await expect(fetchInto(pin({ sha256: null }))).rejects.toThrow(`${NAME} has no known checksum in this build, so it is not downloaded`);
    expect(requests()).toEqual([]);
  });

  it("404: one request, no retry, names the artifact", async () => {
    mirror.setFault(PATH, { kind: "status", status: 404 });
    await expect(fetchInto()).rejects.toThrow(new RegExp(`^${NAME.replace(/[()]/g, "\\$&")}: .* answered HTTP 404$`));
    expect(requests()).toHaveLength(1);
  });

  it("500 then success: retried, and the second answer is used", async () => {
    mirror.setFault(PATH, { kind: "status", status: 500, times: 1 });
    const { file } = await fetchInto();
    expect(sameBytes(await fs.readFile(file), body)).toBe(true);
    expect(requests().map((r) => r.status)).toEqual([500, 200]);
  });

  it("500 every time: gives up after the bounded attempts", async () => {
    mirror.setFault(PATH, { kind: "status", status: 503 });
    await expect(fetchInto(pin(), { attempts: 3 })).rejects.toThrow(/Node 24\.21\.0 \(linux-x64\): .* answered HTTP 503 \(gave up after 3 attempts\)/);
    expect(requests()).toHaveLength(3);
  });

  it("a truncated body once: retried", async () => {
    mirror.setFault(PATH, { kind: "truncate", afterBytes: 1000, times: 1 });
    const { file } = await fetchInto();
    expect(sameBytes(await fs.readFile(file), body)).toBe(true);
    expect(requests()).toHaveLength(2);
  });

  it("a body cut at 60%: the rest is asked for with a Range request, and the whole file's hash decides", async () => {
    const cut = Math.floor(body.length * 0.6);
    mirror.setFault(PATH, { kind: "truncate", afterBytes: cut, times: 1 });
    const { file } = await fetchInto();
    expect(sameBytes(await fs.readFile(file), body)).toBe(true);
    // The rest from the byte that had arrived (the mirror sends the 60%, and the socket may close on fewer).
    expect(requests().map((r) => [r.range === null ? null : "range", r.status])).toEqual([
      [null, 200],
      ["range", 206],
    ]);
    const from = Number(/^bytes=(\d+)-$/.exec(requests()[1]!.range!)?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(cut);
  });

  it("a kept part that the pinned hash then refuses: nothing is left, and the next download starts from zero", async () => {
    const cut = Math.floor(body.length * 0.6);
    mirror.setFault(PATH, { kind: "truncate", afterBytes: cut, times: 1 });
    await expect(fetchInto(pin({ sha256: "0".repeat(64) }))).rejects.toThrow("does not match its pinned sha256");
    expect(requests().map((r) => r.range?.replace(/\d+/, "n") ?? null)).toEqual([null, "bytes=n-"]);
  });

  it("a truncated body every time: refused, naming the artifact", async () => {
    mirror.setFault(PATH, { kind: "truncate", afterBytes: 1000 });
    await expect(fetchInto(pin(), { attempts: 2 })).rejects.toThrow(
      /^Node 24\.21\.0 \(linux-x64\): .*(broke off after|ended after) \d+ .*gave up after 2 attempts/,
    );
  });

  it("a Content-Length that promises more than is sent: refused as a truncation", async () => {
    mirror.setFault(PATH, { kind: "wrong-length", delta: 100 });
    await expect(fetchInto(pin({ size: null }), { attempts: 2 })).rejects.toThrow(/^Node 24\.21\.0 \(linux-x64\): .*(ended after|broke off after)/);
    // The second try asks for the rest: the mirror sends what it has (206), or, when all it has had arrived, has no
    // more (416) and is asked for the whole at once.
    expect(requests()[1]?.range).toMatch(/^bytes=\d+-$/);
    expect([
      [200, 206],
      [200, 416, 200],
    ]).toContainEqual(requests().map((r) => r.status));
  });

  it("a Content-Length other than the pinned exact size: refused before reading, no retry", async () => {
    mirror.setFault(PATH, { kind: "wrong-length", delta: 100 });
    await expect(fetchInto()).rejects.toThrow(`announces ${body.length + 100} bytes; ${NAME} is exactly ${body.length}`);
    expect(requests()).toHaveLength(1);
  });

  it("Content-Length over the cap: refused before the body is read, no retry", async () => {
    await expect(fetchInto(pin({ size: null, maxBytes: 1000 }))).rejects.toThrow(`announces ${body.length} bytes, more than the 1000 allowed for ${NAME}`);
    expect(requests()).toHaveLength(1);
  });

  it("Content-Length other than the pinned exact size: refused, no retry", async () => {
    await expect(fetchInto(pin({ size: body.length - 1 }))).rejects.toThrow(`; ${NAME} is exactly ${body.length - 1}`);
    expect(requests()).toHaveLength(1);
  });

  it("a gzip-encoded body: refused, no retry", async () => {
    mirror.setFault(PATH, { kind: "gzip" });
    await expect(fetchInto()).rejects.toThrow(/sent a gzip-encoded body; only the exact bytes can be verified/);
    expect(requests()).toHaveLength(1);
  });

  it("a redirect to another host: refused for a runtime, never followed", async () => {
    mirror.setFault(PATH, { kind: "redirect" });
    await expect(fetchInto()).rejects.toThrow(/redirected to 127\.0\.0\.1:\d+, which is not an allowed host for Node 24\.21\.0 \(linux-x64\)/);
    expect(mirror.requests.filter((r) => r.port === "alt")).toEqual([]);
  });

  it("a redirect to a listed release host is still refused over plain http", async () => {
    mirror.setFault(PATH, { kind: "redirect" });
    const alt = new URL(mirror.altUrl).host;
    work = scratchDir("gss-download-");
    await expect(
      httpClient({ role: "installer", target: "linux-x64", env: {}, redirectHosts: () => [alt] }).download(
        `${mirror.url}/${PATH}`,
        join(work, "f"),
        pin(),
        fast,
      ),
    ).rejects.toThrow(/not an allowed host/);
    expect(mirror.requests.filter((r) => r.port === "alt")).toEqual([]);
  });

  it("a stall before the headers: cut by the stall timeout, retried, then refused", async () => {
    mirror.setFault(PATH, { kind: "stall", ms: 5000 });
    await expect(fetchInto(pin(), { attempts: 2, stallMs: 1000 })).rejects.toThrow(/Node 24\.21\.0 \(linux-x64\): .* no data for 1 s/);
    expect(requests()).toHaveLength(2);
  });

  it("a stall in the middle of the body, once: cut and retried", async () => {
    mirror.setFault(PATH, { kind: "stall", ms: 5000, afterBytes: 64 * 1024, times: 1 });
    const { file } = await fetchInto(pin(), { stallMs: 1000 });
    expect(sameBytes(await fs.readFile(file), body)).toBe(true);
    expect(requests()).toHaveLength(2);
  });

  it("a stall longer than the request timeout: cut by the timeout", async () => {
    mirror.setFault(PATH, { kind: "stall", ms: 4000, times: 1 });
    await expect(fetchInto(pin(), { attempts: 1, stallMs: 10_000, timeoutMs: 800 })).rejects.toThrow(/took longer than 1 s/);
  });

  it("one flipped byte: refused as a hash mismatch, no retry", async () => {
    mirror.setFault(PATH, { kind: "flip" });
    await expect(fetchInto()).rejects.toThrow(`${NAME} from ${mirror.url}/${PATH} does not match its pinned sha256; it was not used`);
    expect(requests()).toHaveLength(1);
  });

  it("checks a subresource integrity (sha512) too", async () => {
    const integrity = `sha512-${createHash("sha512").update(body).digest("base64")}`;
    await fetchInto(pin({ sha256: null, integrity }));
    mirror.setFault(PATH, { kind: "flip", offset: 7 });
    await expect(fetchInto(pin({ sha256: null, integrity }))).rejects.toThrow(/does not match its pinned sha512 integrity/);
  });

  it("a file that cannot be written: refused at once, no retry, no hang", async () => {
    work = scratchDir("gss-download-");
    await expect(http.download(`${mirror.url}/${PATH}`, join(work, "missing", "f"), pin(), fast)).rejects.toThrow(
      /^could not write Node 24\.21\.0 \(linux-x64\) to .* \(ENOENT\)$/,
    );
    expect(requests()).toHaveLength(1);
  });

  it("a large download waits for the disk many times without piling up listeners (no warning)", async () => {
    const big = randomBytes(8 * 1024 * 1024);
    await fs.mkdir(join(root, "big"), { recursive: true });
    await fs.writeFile(join(root, "big", "a.bin"), big);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      work = scratchDir("gss-download-");
      const expected = { name: "big", sha256: createHash("sha256").update(big).digest("hex"), size: big.length, maxBytes: big.length };
      await http.download(`${mirror.url}/big/a.bin`, join(work, "f"), expected, fast);
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a connection reset: retried, then refused naming the artifact", async () => {
    const sockets: Server = createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((r) => sockets.listen(0, "127.0.0.1", () => r()));
    const port = (sockets.address() as { port: number }).port;
    let accepted = 0;
    sockets.on("connection", () => accepted++);
    work = scratchDir("gss-download-");
    try {
      await expect(http.download(`http://127.0.0.1:${port}/${PATH}`, join(work, "f"), pin(), { ...fast, attempts: 3 })).rejects.toThrow(
        /^Node 24\.21\.0 \(linux-x64\): could not reach http:\/\/127\.0\.0\.1:\d+\/.* \((ECONNRESET|other side closed)\).*gave up after 3 attempts/,
      );
      expect(accepted).toBe(3);
      expect(await fs.readdir(work)).toEqual([]);
    } finally {
      await new Promise((r) => sockets.close(r));
    }
  });
});

describe("fetchArtifact from an offline folder", () => {
  async function fromFolder(mutate?: (file: string) => Promise<void>, expected = pin()) {
    work = scratchDir("gss-folder-");
    const folder = join(work, "bundle");
    await fs.mkdir(join(folder, "node", "v24.21.0"), { recursive: true });
    const file = join(folder, PATH);
    await fs.writeFile(file, body);
    await mutate?.(file);
    const dir = join(work, "runtime");
    try {
      return await fetchArtifact(http, { kind: "folder", root: folder }, PATH, dir, expected);
    } catch (error) {
      expect(await fs.readdir(dir)).toEqual([]);
      throw error;
    }
  }

  it("copies and verifies the file", async () => {
    expect(sameBytes(await fs.readFile(await fromFolder()), body)).toBe(true);
  });

  it("refuses one flipped byte", async () => {
    await expect(
      fromFolder(async (file) => {
        const data = Buffer.from(body);
        data[1000] = data[1000]! ^ 0xff;
        await fs.writeFile(file, data);
      }),
    ).rejects.toThrow(`does not match the pinned sha256 of ${NAME}`);
  });

  it("refuses a link in the folder before copying", async (ctx) => {
    requires(ctx, "symlinks");
    await expect(
      fromFolder(async (file) => {
        await fs.rename(file, `${file}.real`);
        await fs.symlink(`${file}.real`, file);
      }),
    ).rejects.toThrow(/ in .*\/bundle is a link; a folder source is read without following links$/);
  });

  it("refuses a file over the cap before copying", async () => {
    await expect(fromFolder(undefined, pin({ size: null, maxBytes: 1000 }))).rejects.toThrow(`is larger than the 1000 bytes allowed`);
  });
});

describe("sameBytes", () => {
  it("compares digests of any length without throwing", () => {
    expect(sameBytes(Buffer.from("aa", "hex"), Buffer.from("aa", "hex"))).toBe(true);
    expect(sameBytes(Buffer.from("aa", "hex"), Buffer.from("ab", "hex"))).toBe(false);
    expect(sameBytes(Buffer.from("aa", "hex"), Buffer.from("aabb", "hex"))).toBe(false);
  });
});

describe("a server that does not honour ranges", () => {
  it("sends the whole body again after a cut, and that whole body is what is written", async () => {
    const seen: string[] = [];
    const server: Server = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.once("data", (request) => {
        const range = /\r\nrange: ([^\r]*)/i.exec(request.toString("latin1"))?.[1] ?? null;
        seen.push(range ?? "whole");
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
        // The first answer is cut at 60%; the next, asked with a Range, is the whole body anyway.
        socket.end(seen.length === 1 ? body.subarray(0, Math.floor(body.length * 0.6)) : body);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    try {
      work = scratchDir("gss-download-");
      const dest = join(work, "node.tar.gz");
      await http.download(`http://127.0.0.1:${(server.address() as { port: number }).port}/${PATH}`, dest, pin(), fast);
      expect(sameBytes(await fs.readFile(dest), body)).toBe(true);
      // The Range asks for the rest from what had arrived and been written (at most the 60% sent).
      expect(seen).toHaveLength(2);
      expect(seen[0]).toBe("whole");
      const from = Number(/^bytes=(\d+)-$/.exec(seen[1]!)?.[1]);
      expect(from).toBeGreaterThan(0);
      expect(from).toBeLessThanOrEqual(Math.floor(body.length * 0.6));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
