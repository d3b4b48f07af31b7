/**
 * Hostile archives at the runtime level (spec: "Ownership rules", Runtimes):
 * a Node archive or pnpm tarball, pinned and served from a mirror of its
 * own, with a member outside its folder, a device, a link, too many members
 * or an expansion bomb is refused and publishes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { scratchDir } from "../support/scratch";
import { dirname, join } from "pathe";
import { npmCliOf } from "../../src/core/layout";
import type { Pins } from "../../src/pins/types";
import { ensureRuntimes } from "../../src/install/runtime/index";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { fixtures } from "../support/context";
import { startMirror, type Mirror } from "../support/mirror";
import { context, runtimeEntries } from "../support/runtime-context";
import { createGzip } from "node:zlib";
import { Header } from "tar";
import { rawTarGz, type RawMember } from "../support/raw-tar";

const f = fixtures();

type Member = RawMember;

/** Every member executable, as in the runtime archives these stand in for. */
function tarGz(members: Member[]): Buffer {
  return rawTarGz(members.map((m) => ({ mode: 0o755, ...m })));
}

describe("hostile archives publish nothing", () => {
  let root: string;
  let mirror: Mirror;
  const top = "node-v24.21.0-linux-x64";
  const nodeBase: Member[] = [
    { path: `${top}/`, type: "Directory" },
    { path: `${top}/bin/node`, body: "#!/bin/sh\necho v24.21.0\n" },
  ];

  beforeAll(async () => {
    root = scratchDir("gss-hostile-mirror-");
    mirror = await startMirror({ root });
  });
  afterAll(async () => {
    await mirror.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** Serve `data` as the Node archive (or the pnpm tarball), pinned, and run ensureRuntimes. */
  async function attempt(which: "node" | "pnpm", data: Buffer) {
    const rel = `${which}/${Math.random().toString(16).slice(2)}.tgz`;
    await fs.mkdir(join(root, which), { recursive: true });
    await fs.writeFile(join(root, rel), data);
    const file = { path: rel, sha256: createHash("sha256").update(data).digest("hex"), size: data.length, maxBytes: 64 * 1024 * 1024 };
    const pins: Pins =
      which === "node"
        ? { ...f.pins, node: { ...f.pins.node, archives: { "linux-x64": file } } }
        : { ...f.pins, pnpm: { ...f.pins.pnpm, integrity: null, file } };
    const ctx = await context({ pins, base: mirror.url });
    if (which === "pnpm") {
      // A marked Node stands in for ours (its two run files there, no record: an earlier install's, reused as it is):
      // pnpm's archive is refused before anything runs.
      for (const file of [ctx.layout.node, npmCliOf(ctx.layout)]) {
        await fs.mkdir(dirname(file), { recursive: true });
        await fs.writeFile(file, "");
      }
      await fs.writeFile(join(ctx.layout.nodeDir, RUNTIME_MARKER), "test\n");
    }
    const error = await ensureRuntimes(ctx).then(
      () => null,
      (e: Error) => e,
    );
    const left = (await runtimeEntries(ctx.layout)).filter((n) => n !== "node-24.21.0" || which === "node");
    return { error, left };
  }

  it.each([
    [
      "../x",
      "node",
      [...nodeBase, { path: `${top}/../x`, body: "x" }],
      /node-v24\.21\.0-linux-x64 archive holds a member outside its folder \(node-v24\.21\.0-linux-x64\/\.\.\/x\)/,
    ],
    [
      "an absolute member",
      "node",
      [...nodeBase, { path: "/tmp/gss-absolute-x", body: "x" }],
      /node-v24\.21\.0-linux-x64 archive holds a member outside its folder \(\/tmp\/gss-absolute-x\)/,
    ],
    [
      "a device member",
      "node",
      [...nodeBase, { path: `${top}/lib/node_modules/npm/dev`, type: "CharacterDevice" }],
      /node-v24\.21\.0-linux-x64 archive holds a CharacterDevice member/,
    ],
    [
      "a symbolic link (pnpm)",
      "pnpm",
      [
        { path: "package/bin/pnpm.mjs", body: "x" },
        { path: "package/l", type: "SymbolicLink", linkpath: "/etc/passwd" },
      ],
      /pnpm tarball holds a link \(package\/l\)/,
    ],
    [
      "a hard link (pnpm)",
      "pnpm",
      [
        { path: "package/a", body: "x" },
        { path: "package/h", type: "Link", linkpath: "package/a" },
      ],
      /pnpm tarball holds a link \(package\/h\)/,
    ],
  ] as Array<[string, "node" | "pnpm", Member[], RegExp]>)("%s", async (_name, which, members, message) => {
    const { error, left } = await attempt(which, tarGz(members));
    expect(error?.message).toMatch(message);
    expect(left).toEqual([]);
    await expect(fs.stat("/tmp/gss-absolute-x")).rejects.toThrow();
  });

  it("100,000 members", async () => {
    const many: Member[] = [...nodeBase];
    for (let i = 0; i < 100_000; i++) many.push({ path: `${top}/lib/node_modules/npm/f${i}` });
    const { error, left } = await attempt("node", tarGz(many));
    expect(error?.message).toMatch(/node-v24\.21\.0-linux-x64 archive has more than 20000 members; it was not extracted/);
    expect(left).toEqual([]);
  });

  it("an expansion bomb", async () => {
    // 401 MiB of zeros: past the 400 MiB the Node policy allows, a few hundred KiB compressed.
    const size = 401 * 1024 * 1024;
    const header = Buffer.alloc(512);
    new Header({ path: `${top}/bin/node`, type: "File", size, mode: 0o755, mtime: new Date(0) }).encode(header, 0);
    // Compressed as a stream, so the test never holds the expanded bytes.
    const gzip = createGzip({ level: 1 });
    const out: Buffer[] = [];
    gzip.on("data", (c: Buffer) => out.push(c));
    const ended = new Promise((r) => gzip.on("end", r));
    const mib = Buffer.alloc(1024 * 1024);
    gzip.write(header);
    for (let i = 0; i < size / mib.length; i++) if (!gzip.write(mib)) await new Promise((r) => gzip.once("drain", r));
    gzip.end(Buffer.alloc(1024));
    await ended;
    const data = Buffer.concat(out);
    const { error, left } = await attempt("node", data);
    expect(error?.message).toMatch(/node-v24\.21\.0-linux-x64 archive expands to more than 419430400 bytes; it was not extracted/);
    expect(left).toEqual([]);
  });
});
