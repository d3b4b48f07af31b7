/**
 * Archive extraction under one member policy (spec: "Ownership rules",
 * Runtimes; "npm for Pi"). Only the members a policy selects are written, as
 * regular files and folders inside the destination. A member that would leave
 * the folder, an absolute path, a device or a FIFO rejects the whole archive;
 * links are skipped or rejected as the archive's policy says; caps bound the
 * number of members and the expanded bytes so a bomb stops early.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, createReadStream, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { open as openFile } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import type { WrittenFile } from "./file-tree";
import { CREATE_NEW } from "./safe-fs";
import { Parser, type ReadEntry } from "tar";
import { dirname, join } from "../core/native-path";

export interface MemberPolicy {
  /** What this archive is, for messages. */
  name: string;
  /** Destination path (relative, "/"-separated) for a member, or null to skip it. */
  select(path: string, type: "file" | "directory"): string | null | typeof OUTSIDE;
  /** Links: skipped (Node's archive carries bin/npm as a link we replace) or fatal. */
  links: "skip" | "reject";
  maxMembers: number;
  maxBytes: number;
  /** Mode for a written file from the member's mode. */
  fileMode?(memberMode: number, path: string): number;
}

export class ArchiveError extends Error {}

/** What `select` returns for a member outside the archive's one top folder: the archive is rejected. */
export const OUTSIDE = Symbol("outside");

export function unsafeMemberPath(path: string): boolean {
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) return true;
  return path.split(/[\\/]+/).some((segment) => segment === "..");
}

function normalise(path: string): string {
  return path
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
}

/** Default modes: 0755 when the member is executable by its owner, else 0644. */
export function ownerExecMode(memberMode: number): number {
  return memberMode & 0o100 ? 0o755 : 0o644;
}

export interface ExtractResult {
  files: number;
  bytes: number;
  skipped: string[];
  /** Each written file's size and sha256, by its path under the destination ("/"-separated), hashed from the bytes as they were written. */
  written: Map<string, WrittenFile>;
}

/** Read size of an archive: large reads, so gzip and the parser see few, big chunks. */
const READ_CHUNK = 1024 * 1024;

/**
 * A .tar.gz begins with gzip's two magic bytes. tar's parser reads anything
 * else as a plain tar and fails in its own words ("invalid base256
 * encoding"), so the file is looked at first. Only verified archives are
 * extracted (./download; install/runtime/recipe.ts, step 2), so a file that
 * is not gzip matched its pin: the pin is wrong, not the download, and only
 * another gentle-shell-setup mends it.
 */
async function expectGzip(file: string, name: string): Promise<void> {
  const handle = await openFile(file, "r");
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buffer, 0, 4, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return;
  const begins = head.length === 0 ? "it is empty" : `it begins ${[...head].map((b) => b.toString(16).padStart(2, "0")).join(" ")}`;
  throw new ArchiveError(
    `${name} is not a gzip archive (${begins}, where gzip begins 1f 8b), although it matches its pinned checksum; it was not extracted: this gentle-shell-setup pins a wrong file, so install with another release of gentle-shell-setup`,
  );
}

/** What the caller hears while an archive is extracted. */
export interface ExtractHooks {
  /**
   * A member's file is whole: written, its mode set and closed, so it can be run while the rest is extracted
   * (the archive was verified before extraction began). Called with its path under the destination ("/"-separated).
   */
  whole?: (target: string) => void;
}

/**
 * Members are handled one at a time and written with synchronous calls as
 * their bytes arrive, so at most one file is open, memory stays bounded
 * whatever the archive holds (100,000 empty members, one huge member), and
 * nothing is left writing after a rejection.
 */
export async function extractTarGz(file: string, dest: string, policy: MemberPolicy, hooks: ExtractHooks = {}): Promise<ExtractResult> {
  await expectGzip(file, policy.name);
  const result: ExtractResult = { files: 0, bytes: 0, skipped: [], written: new Map() };
  let members = 0;
  const made = new Set<string>();
  const ensureDir = (dir: string) => {
    if (made.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    made.add(dir);
  };
  let open: { fd: number; path: string; target: string; hash: Hash; size: number } | null = null;
  const closeOpen = () => {
    if (open) {
      try {
        closeSync(open.fd);
      } catch {
        // already closed
      }
      open = null;
    }
  };

  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const input = createReadStream(file, { highWaterMark: READ_CHUNK });
      // gzip in Node's thread pool, beside the parser and the writes here (tar's own gunzip runs in this thread).
      const gunzip = createGunzip({ chunkSize: READ_CHUNK });
      const parser = new Parser({ strict: true });
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        closeOpen();
        input.destroy();
        gunzip.destroy();
        reject(error instanceof ArchiveError ? error : new ArchiveError(`${policy.name}: ${error.message}`));
      };
      const guard = (work: () => void) => {
        try {
          work();
        } catch (error) {
          fail(error as Error);
        }
      };
      parser.on("entry", (entry: ReadEntry) =>
        guard(() => {
          if (failed) {
            entry.resume();
            return;
          }
          members++;
          if (members > policy.maxMembers) {
            entry.resume();
            throw new ArchiveError(`${policy.name} has more than ${policy.maxMembers} members; it was not extracted`);
          }
          const path = normalise(entry.path);
          if (unsafeMemberPath(entry.path)) {
            entry.resume();
            throw new ArchiveError(`${policy.name} holds a member outside its folder (${entry.path}); it was not extracted`);
          }
          const type = entry.type;
          if (type === "SymbolicLink" || type === "Link") {
            entry.resume();
            if (policy.links === "reject") throw new ArchiveError(`${policy.name} holds a link (${entry.path}); it was not extracted`);
            result.skipped.push(path);
            return;
          }
          if (type === "Directory") {
            entry.resume();
            const target = policy.select(path, "directory");
            if (target === OUTSIDE) throw new ArchiveError(`${policy.name} holds a member outside its top folder (${entry.path}); it was not extracted`);
            if (target !== null && target !== "") {
              if (unsafeMemberPath(target)) throw new ArchiveError(`${policy.name}: refusing ${target}`);
              ensureDir(join(dest, target));
            }
            return;
          }
          if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile") {
            entry.resume();
            throw new ArchiveError(`${policy.name} holds a ${type} member (${entry.path}); it was not extracted`);
          }
          const target = policy.select(path, "file");
          if (target === OUTSIDE) {
            entry.resume();
            throw new ArchiveError(`${policy.name} holds a member outside its top folder (${entry.path}); it was not extracted`);
          }
          if (target === null) {
            entry.resume();
            result.skipped.push(path);
            return;
          }
          if (unsafeMemberPath(target)) {
            entry.resume();
            throw new ArchiveError(`${policy.name}: refusing ${target}`);
          }
          result.bytes += entry.size ?? 0;
          if (result.bytes > policy.maxBytes) {
            entry.resume();
            throw new ArchiveError(`${policy.name} expands to more than ${policy.maxBytes} bytes; it was not extracted`);
          }
          result.files++;
          const destPath = join(dest, target);
          const mode = (policy.fileMode ?? ownerExecMode)(entry.mode ?? 0o644, target);
          ensureDir(dirname(destPath));
          const fd = openSync(destPath, CREATE_NEW, mode);
          open = { fd, path: destPath, target, hash: createHash("sha256"), size: 0 };
          entry.on("data", (chunk: Buffer) =>
            guard(() => {
              if (failed || !open) return;
              writeSync(open.fd, chunk);
              open.hash.update(chunk);
              open.size += chunk.byteLength;
            }),
          );
          entry.on("end", () =>
            guard(() => {
              if (failed || !open) return;
              fchmodSync(open.fd, mode);
              result.written.set(open.target, { size: open.size, sha256: open.hash.digest("hex") });
              const whole = open.target;
              closeOpen();
              hooks.whole?.(whole);
            }),
          );
        }),
      );
      parser.on("error", (error: Error) => fail(error));
      parser.on("warn", (_code: string, message: string | Error) => {
        fail(new ArchiveError(`${policy.name} is damaged (${message instanceof Error ? message.message : message})`));
      });
      input.on("error", (error) => fail(error));
      gunzip.on("error", (error) => fail(new ArchiveError(`${policy.name} is damaged (${error.message})`)));
      parser.on("end", () => {
        if (!failed) resolve();
      });
      input.pipe(gunzip).pipe(parser);
    });
  } finally {
    closeOpen();
  }
  return result;
}
