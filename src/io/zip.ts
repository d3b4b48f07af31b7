/**
 * .zip extraction (Windows archives of Node, Go and Engram) under the same
 * member policy as tar (src/io/archive.ts), read with yauzl:
 *
 * - the member count comes from the central directory and is checked before
 *   any member is read;
 * - names are decoded by us (not by yauzl) so a name that leaves the folder
 *   or is absolute gets the same message as in a tar;
 * - the member's type comes from its external attributes: a Unix mode
 *   (symbolic link, device, FIFO, socket) or a DOS reparse point (a Windows
 *   link); links are skipped or rejected as the policy says, the rest reject
 *   the archive;
 * - declared sizes count against the byte cap before a member is written, and
 *   yauzl checks that each member inflates to exactly its declared size, so a
 *   member that lies about its size stops too;
 * - encrypted members reject the archive.
 */
import { createHash } from "node:crypto";
import { createWriteStream, promises as fs } from "node:fs";
import { dirname, join } from "../core/native-path";
import yauzl from "yauzl";
import { ArchiveError, OUTSIDE, ownerExecMode, unsafeMemberPath, type ExtractResult, type MemberPolicy } from "./archive";

const S_IFMT = 0o170000;
const TYPES: Record<number, string> = {
  0o140000: "socket",
  0o120000: "link",
  0o100000: "file",
  0o060000: "block device",
  0o040000: "directory",
  0o020000: "character device",
  0o010000: "FIFO",
};
const DOS_DIRECTORY = 0x10;
const DOS_REPARSE_POINT = 0x400;

/** What a zip member is, from its name and external attributes. */
export function zipMemberType(name: string, versionMadeBy: number, externalAttributes: number): { type: string; mode: number | null } {
  const host = versionMadeBy >> 8;
  const unixMode = externalAttributes >>> 16;
  // 3: Unix, 19: OS X; both keep st_mode in the high 16 bits.
  if ((host === 3 || host === 19) && unixMode & S_IFMT) {
    return { type: TYPES[unixMode & S_IFMT] ?? "unknown", mode: unixMode & 0o7777 };
  }
  const dos = externalAttributes & 0xffff;
  if (dos & DOS_REPARSE_POINT) return { type: "link", mode: null };
  if (name.endsWith("/") || dos & DOS_DIRECTORY) return { type: "directory", mode: null };
  return { type: "file", mode: null };
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true, decodeStrings: false, validateEntrySizes: true, strictFileNames: false }, (error, zip) =>
      error || !zip ? reject(error ?? new Error("no zip")) : resolve(zip),
    );
  });
}

function closeQuietly(zip: yauzl.ZipFile): void {
  try {
    if (zip.isOpen) zip.close();
  } catch {
    // already closed by autoClose
  }
}

export async function extractZip(file: string, dest: string, policy: MemberPolicy): Promise<ExtractResult> {
  const result: ExtractResult = { files: 0, bytes: 0, skipped: [], written: new Map() };
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (error) {
    throw new ArchiveError(`${policy.name} is not a readable zip (${(error as Error).message})`);
  }
  if (zip.entryCount > policy.maxMembers) {
    closeQuietly(zip);
    throw new ArchiveError(`${policy.name} has more than ${policy.maxMembers} members; it was not extracted`);
  }
  const made = new Set<string>();
  const ensureDir = async (dir: string) => {
    if (made.has(dir)) return;
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    made.add(dir);
  };

  const handle = async (entry: yauzl.Entry): Promise<void> => {
    const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
    if (unsafeMemberPath(raw) || raw.includes("\0")) {
      throw new ArchiveError(`${policy.name} holds a member outside its folder (${raw}); it was not extracted`);
    }
    const path = raw
      .replace(/\\/g, "/")
      .replace(/^\.\/+/, "")
      .replace(/\/+$/, "");
    const { type, mode } = zipMemberType(raw, entry.versionMadeBy, entry.externalFileAttributes);
    if (type === "link") {
      if (policy.links === "reject") throw new ArchiveError(`${policy.name} holds a link (${raw}); it was not extracted`);
      result.skipped.push(path);
      return;
    }
    if (type === "directory") {
      const target = policy.select(path, "directory");
      if (target === OUTSIDE) throw new ArchiveError(`${policy.name} holds a member outside its top folder (${raw}); it was not extracted`);
      if (target !== null && target !== "") {
        if (unsafeMemberPath(target)) throw new ArchiveError(`${policy.name}: refusing ${target}`);
        await ensureDir(join(dest, target));
      }
      return;
    }
    if (type !== "file") throw new ArchiveError(`${policy.name} holds a ${type} member (${raw}); it was not extracted`);
    if (entry.isEncrypted()) throw new ArchiveError(`${policy.name} holds an encrypted member (${raw}); it was not extracted`);
    const target = policy.select(path, "file");
    if (target === OUTSIDE) throw new ArchiveError(`${policy.name} holds a member outside its top folder (${raw}); it was not extracted`);
    if (target === null) {
      result.skipped.push(path);
      return;
    }
    if (unsafeMemberPath(target)) throw new ArchiveError(`${policy.name}: refusing ${target}`);
    result.bytes += entry.uncompressedSize;
    if (result.bytes > policy.maxBytes) {
      throw new ArchiveError(`${policy.name} expands to more than ${policy.maxBytes} bytes; it was not extracted`);
    }
    result.files++;
    const destPath = join(dest, target);
    const fileMode = (policy.fileMode ?? ownerExecMode)(mode ?? 0o644, target);
    await ensureDir(dirname(destPath));
    const input = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (error, stream) => (error || !stream ? reject(error ?? new Error("no stream")) : resolve(stream))),
    );
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(destPath, { flags: "wx", mode: fileMode });
      let written = 0;
      const hash = createHash("sha256");
      const fail = (error: Error) => {
        (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        out.destroy();
        reject(error);
      };
      input.on("data", (chunk: Buffer) => {
        written += chunk.length;
        hash.update(chunk);
        // yauzl checks the declared size too; this bounds a member whatever its header says.
        if (written > entry.uncompressedSize) fail(new ArchiveError(`${policy.name}: ${raw} expands past its declared size; it was not extracted`));
      });
      input.on("error", (error: Error) => fail(error));
      out.on("error", (error) => fail(error));
      out.on("finish", () =>
        fs.chmod(destPath, fileMode).then(() => {
          result.written.set(target, { size: written, sha256: hash.digest("hex") });
          resolve();
        }, reject),
      );
      input.pipe(out);
    });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        closeQuietly(zip);
        reject(error);
      };
      zip.on("entry", (entry: yauzl.Entry) => {
        handle(entry).then(
          () => {
            if (!failed) zip.readEntry();
          },
          (error: Error) => fail(error),
        );
      });
      zip.on("end", () => {
        if (!failed) resolve();
      });
      zip.on("error", (error: Error) => fail(error));
      zip.readEntry();
    });
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`${policy.name} is damaged (${(error as Error).message}); it was not extracted`);
  }
  return result;
}
