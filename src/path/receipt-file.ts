/**
 * The receipt file `<prefix>/path-entry.json` (spec: "PATH", "Persisted
 * receipt" and "Reading it back"): written mode 0600 with one rename, only
 * for an applied change; read back through a descriptor that does not
 * follow links, and checked by checkReceipt in `receipt.ts`.
 */
import { errnoCode } from "../core/errno";
import * as nodeFs from "node:fs";
import { dirname, join } from "../core/native-path";
import { stagingName } from "../io/staging";
import type { Env } from "../core/environment";
import type { Layout, Platform } from "../core/layout";
import type { PathIoOptions } from "./fs";
import { NOFOLLOW, O, OwnFileError, openOwnFileSync, readAll, writeAll } from "../io/safe-fs";
import { renameSync, unlinkSync } from "../io/locked-retry";
import { checkReceipt, receiptJson, type PathReceipt, type ReceiptCheck } from "./receipt";

/**
 * spec PATH, "Persisted receipt": writes an applied receipt to
 * <prefix>/path-entry.json, mode 0600, with one rename. A receipt with
 * applied: false is not written (an earlier receipt stays); returns whether
 * the file was written.
 */
export function writePathReceipt(layout: Layout, receipt: PathReceipt, options: PathIoOptions = {}): boolean {
  if (!receipt.applied) return false;
  const fs = options.fs ?? nodeFs;
  const tmp = join(dirname(layout.pathReceipt), stagingName("path-entry.json.tmp"));
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW, 0o600);
    fs.fchmodSync(fd, 0o600);
    writeAll(fs, fd, Buffer.from(receiptJson(receipt)));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    renameSync(fs, tmp, layout.pathReceipt);
    return true;
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    try {
      unlinkSync(fs, tmp);
    } catch {
      /* it was never created */
    }
    throw e;
  }
}

export type ReadReceipt = { status: "missing" } | ReceiptCheck;

/** spec PATH, "Reading it back": only what this prefix writes is valid. */
export function readPathReceipt(layout: Layout, env: Env, options: PathIoOptions & { home?: string; platform?: Platform } = {}): ReadReceipt {
  const fs = options.fs ?? nodeFs;
  const home = options.home ?? layout.home;
  let st: nodeFs.Stats;
  try {
    st = fs.lstatSync(layout.pathReceipt);
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return { status: "missing" };
    throw e;
  }
  if (!st.isFile()) return { status: "invalid", reason: "path-entry.json is a link or not a file", manual: null };
  if (st.size > 64 * 1024) return { status: "invalid", reason: "path-entry.json is too large", manual: null };
  let text: string;
  let fd: number;
  try {
    // Never through a link, on Windows too, where the open cannot refuse one: a link put there after the lstat above is found.
    fd = openOwnFileSync(layout.pathReceipt, { platform: layout.platform, fs });
  } catch (e) {
    if (e instanceof OwnFileError || errnoCode(e) === "ELOOP" || errnoCode(e) === "EMLINK") {
      return { status: "invalid", reason: "path-entry.json is a link or not a file", manual: null };
    }
    throw e;
  }
  try {
    text = readAll(fs, fd).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
  return checkReceipt(text, {
    home,
    env,
    platform: options.platform ?? layout.platform,
    bin: layout.bin,
    launcher: layout.launcher,
  });
}
