/**
 * A download whose bytes do not match the pin (issue 39, "Sentences that name
 * the wrong thing"): its progress line says the check failed, not the
 * download, before the final sentence; a download that did fail still says
 * so. From the mirror (verifiedDownload) and from an offline folder.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { Writable } from "node:stream";
import { join } from "pathe";
import { scratchDir } from "../support/scratch";
import { startMirror, type Mirror } from "../support/mirror";
import type { Expected } from "../../src/io/download";
import { barProgress, lineProgress } from "../../src/io/progress";
import { testHost } from "../support/host";
import { fetchArtifact } from "../../src/install/artifact-fetch";

const PATH = "node/v24.21.0/node-v24.21.0-linux-x64.tar.gz";
const NAME = "Node 24.21.0 (linux-x64)";
const body = randomBytes(300 * 1024);
const other = createHash("sha256").update("other bytes").digest("hex");
const pin = (over: Partial<Expected> = {}): Expected => ({
  name: NAME,
  sha256: createHash("sha256").update(body).digest("hex"),
  size: body.length,
  maxBytes: 1024 * 1024,
  ...over,
});
const fast = { backoffMs: 5, stallMs: 1500, timeoutMs: 20_000, attempts: 2 };

let root: string;
let mirror: Mirror;
beforeAll(async () => {
  root = scratchDir("gss-check-mirror-");
  await fs.mkdir(join(root, "node", "v24.21.0"), { recursive: true });
  await fs.writeFile(join(root, PATH), body);
  mirror = await startMirror({ root });
});
afterAll(async () => {
  await mirror.stop();
});

/** fetchArtifact with plain progress lines; the lines and the final sentence. */
async function fetched(source: Parameters<typeof fetchArtifact>[1], expected: Expected) {
  const lines: string[] = [];
  const progress = lineProgress((l) => lines.push(l)).start(NAME);
  const dir = join(scratchDir("gss-check-"), "runtime");
  const error = await fetchArtifact(testHost().http, source, PATH, dir, expected, { download: { ...fast, progress } }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(await fs.readdir(dir)).toEqual([]);
  return { lines, error };
}

describe("the progress line of a download that fails its check", () => {
  it("from a mirror: verification failed, with what arrived, before the final sentence", async () => {
    const r = await fetched({ kind: "mirror", base: mirror.url }, pin({ sha256: other }));
    expect(r.lines).toEqual([`downloading ${NAME}`, `${NAME}: verification failed after 300.0 KiB (the bytes do not match the pin)`]);
    expect(r.error?.message).toBe(`${NAME} from ${mirror.url}/${PATH} does not match its pinned sha256; it was not used`);
  });

  it("from a mirror, against an integrity pin: the same", async () => {
    const integrity = `sha512-${createHash("sha512").update("other bytes").digest("base64")}`;
    const r = await fetched({ kind: "mirror", base: mirror.url }, pin({ sha256: null, integrity }));
    expect(r.lines[1]).toBe(`${NAME}: verification failed after 300.0 KiB (the bytes do not match the pin)`);
  });

  it("from an offline folder: the same, where no line told the outcome before", async () => {
    const r = await fetched({ kind: "folder", root }, pin({ sha256: other }));
    expect(r.lines).toEqual([`downloading ${NAME}`, `${NAME}: verification failed after 300.0 KiB (the bytes do not match the pin)`]);
    expect(r.error?.message).toMatch(/does not match the pinned sha256 of Node 24\.21\.0 \(linux-x64\)$/);
  });

  it("a download that did fail (HTTP 404) still says the download failed", async () => {
    mirror.setFault(PATH, { kind: "status", status: 404 });
    try {
      const r = await fetched({ kind: "mirror", base: mirror.url }, pin());
      expect(r.lines).toEqual([`downloading ${NAME}`, `${NAME}: download failed after 0 B`]);
    } finally {
      mirror.clearFaults();
    }
  });
});

describe("the bar of a download that fails its check", () => {
  it("says verification failed; a download that failed says failed", () => {
    let text = "";
    const stream = Object.assign(
      new Writable({
        write(chunk, _enc, done) {
          text += String(chunk);
          done();
        },
      }),
      { isTTY: true, columns: 160, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
    ) as unknown as NodeJS.WriteStream;
    const progress = barProgress(stream);
    const checked = progress.start(NAME);
    checked.update(body.length, body.length);
    checked.fail("check");
    progress.stop();
    expect(text).toMatch(/Node 24\.21\.0 \(linux-x64\) \[.*\] 100% 300\.0 KiB of 300\.0 KiB verification failed/);
    text = "";
    const broken = progress.start("pnpm 11.1.1");
    broken.update(10, 100);
    broken.fail();
    progress.stop();
    expect(text).toMatch(/pnpm 11\.1\.1 .* failed/);
    expect(text).not.toContain("verification");
  });
});
