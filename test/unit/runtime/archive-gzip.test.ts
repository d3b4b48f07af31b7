/**
 * A runtime archive that is not gzip at all (issue 39, "Sentences that name
 * the wrong thing"): it is named as such, in one sentence that says what to
 * do, never in tar's words ("invalid base256 encoding"), and nothing of it is
 * written.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join } from "pathe";
import { rawTarGz } from "../../support/raw-tar";
import { ArchiveError, extractTarGz } from "../../../src/io/archive";
import { nodePolicy } from "../../../src/install/runtime/node";

const root = "node-v24.21.0-linux-x64";
let dir: string;
let dest: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "gss-archive-gzip-"));
  dest = join(dir, "out");
  await fs.mkdir(dest);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function refusal(bytes: Buffer): Promise<ArchiveError> {
  const file = join(dir, "node.tar.gz");
  await fs.writeFile(file, bytes);
  const error = await extractTarGz(file, dest, nodePolicy(root, false, 1 << 20)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ArchiveError);
  expect(readdirSync(dest)).toEqual([]);
  return error as ArchiveError;
}

const remedy = "it was not extracted: this gentle-shell-setup pins a wrong file, so install with another release of gentle-shell-setup";

describe("an archive that is not gzip", () => {
  it("bytes tar would read as a damaged plain tar: named not gzip, with its first bytes", async () => {
    const error = await refusal(Buffer.from("\x7fELF not an archive at all, and longer than one tar block ".repeat(20), "latin1"));
    expect(error.message).toBe(
      `${root} archive is not a gzip archive (it begins 7f 45 4c 46, where gzip begins 1f 8b), although it matches its pinned checksum; ${remedy}`,
    );
    expect(error.message).not.toMatch(/base256/);
  });

  it("a zip, and a plain tar that is not compressed", async () => {
    expect((await refusal(Buffer.from("PK\x03\x04rest of a zip", "latin1"))).message).toContain("(it begins 50 4b 03 04, where gzip begins 1f 8b)");
    const plain = gunzipSync(rawTarGz([{ path: `${root}/bin/node`, body: "#!/bin/sh\n", mode: 0o755 }]));
    expect((await refusal(plain)).message).toMatch(/^node-v24\.21\.0-linux-x64 archive is not a gzip archive \(it begins 6e 6f 64 65,/);
  });

  it("an empty file", async () => {
    expect((await refusal(Buffer.alloc(0))).message).toBe(
      `${root} archive is not a gzip archive (it is empty, where gzip begins 1f 8b), although it matches its pinned checksum; ${remedy}`,
    );
  });

  it("a gzip archive is still extracted", async () => {
    const file = join(dir, "node.tar.gz");
    await fs.writeFile(file, rawTarGz([{ path: `${root}/bin/node`, body: "#!/bin/sh\n", mode: 0o755 }]));
    const r = await extractTarGz(file, dest, nodePolicy(root, false, 1 << 20));
    expect(r.files).toBe(1);
    expect(readdirSync(join(dest, "bin"))).toEqual(["node"]);
  });
});
