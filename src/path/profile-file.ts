/**
 * Editing a startup file (spec: "PATH", "Safe appends"): appending our line
 * and taking it back byte for byte. A profile is opened with O_NOFOLLOW (and
 * O_NONBLOCK, so a FIFO put there never blocks us), must be a regular file
 * once open, and its folders under home are checked again right before.
 * Removal edits the file in place through the same kind of descriptor, so
 * its inode, mode and owner stay, and truncates when our line was the end of
 * it.
 */
import { errnoCode } from "../core/errno";
import type { PathFs } from "./fs";
import { NOFOLLOW, NONBLOCK, O, readAll, writeAll } from "../io/safe-fs";
import { unlinkSync } from "../io/locked-retry";
import type { PathEntryPlan } from "./entry-plan";
import { assertRealFolders } from "./probe";
import type { PathReceipt, RemoveResult } from "./receipt";
import { holdsLine, markedLines } from "./shells";

/** Appends the planned line (creating the file and its folders when planned) and returns the receipt. */
export function appendLine(plan: Extract<PathEntryPlan, { kind: "line" }>, home: string, fs: PathFs): PathReceipt {
  const walk = assertRealFolders(plan.file, home, fs);
  const receipt = (applied: boolean, create: boolean, separator: "" | "\n"): PathReceipt => ({
    schema: 1,
    kind: "profile",
    applied,
    path: plan.file,
    line: plan.line,
    create,
    separator,
  });
  if (plan.create) {
    for (const d of walk.missing) {
      try {
        fs.mkdirSync(d);
      } catch (e) {
        if (errnoCode(e) !== "EEXIST") throw e;
      }
      if (!fs.lstatSync(d).isDirectory()) throw new Error(`${d} is not a folder; ${plan.file} was not created`);
    }
    let fd: number;
    try {
      fd = fs.openSync(plan.file, O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW, 0o644);
    } catch (e) {
      if (errnoCode(e) !== "EEXIST") throw e;
      // Someone created it since planning: append to it like any other file.
      return appendLine({ ...plan, create: false }, home, fs);
    }
    try {
      writeAll(fs, fd, Buffer.from(plan.line + "\n"));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return receipt(true, true, "");
  }
  let fd: number;
  try {
    fd = fs.openSync(plan.file, O.O_RDWR | O.O_APPEND | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (errnoCode(e) === "ELOOP" || errnoCode(e) === "EMLINK") throw new Error(`${plan.file} turned into a link after planning; it was not changed`);
    throw e;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${plan.file} is not a regular file; it was not changed`);
    const before = readAll(fs, fd);
    if (holdsLine(before.toString("utf8"), plan.line)) return receipt(false, false, "");
    const separator = before.length > 0 && before[before.length - 1] !== 0x0a ? "\n" : "";
    writeAll(fs, fd, Buffer.from(separator + plan.line + "\n"));
    fs.fsyncSync(fd);
    return receipt(true, false, separator);
  } finally {
    fs.closeSync(fd);
  }
}

/** The last whole-line occurrence of `line` in `buf`, with its newline. */
export function findLine(buf: Buffer, line: string): { start: number; end: number } | null {
  const needle = Buffer.from(line);
  let from = buf.length;
  // The last whole-line occurrence: ours was appended.
  while (from >= 0) {
    const at = buf.lastIndexOf(needle, from);
    if (at < 0) return null;
    const after = at + needle.length;
    const startsLine = at === 0 || buf[at - 1] === 0x0a;
    const endsLine = after === buf.length || buf[after] === 0x0a;
    if (startsLine && endsLine) return { start: at, end: after < buf.length ? after + 1 : after };
    from = at - 1;
  }
  return null;
}

/** Takes back the line a profile receipt records, and the file it created once nothing else is left in it. */
export function removeLine(receipt: Extract<PathReceipt, { kind: "profile" }>, fs: PathFs): RemoveResult {
  let fd: number;
  try {
    fd = fs.openSync(receipt.path, O.O_RDWR | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return { status: "absent" };
    if (errnoCode(e) === "ELOOP" || errnoCode(e) === "EMLINK") {
      return { status: "kept", path: receipt.path, reason: "it is now a link; it was not changed" };
    }
    throw e;
  }
  let emptied = false;
  try {
    if (!fs.fstatSync(fd).isFile()) return { status: "kept", path: receipt.path, reason: "it is no longer a regular file" };
    const buf = readAll(fs, fd);
    const found = findLine(buf, receipt.line);
    if (!found) {
      const left = markedLines(buf.toString("utf8"));
      if (left.length) return { status: "kept", path: receipt.path, line: left[left.length - 1], reason: "the marked line was edited" };
      return { status: "absent" };
    }
    let { start } = found;
    const { end } = found;
    // Our line was the end of the file: take back the newline we added before it too.
    if (end === buf.length && receipt.separator === "\n" && start > 0 && buf[start - 1] === 0x0a) start -= 1;
    const tail = buf.subarray(end);
    if (tail.length) writeAll(fs, fd, Buffer.from(tail), start);
    fs.ftruncateSync(fd, start + tail.length);
    fs.fsyncSync(fd);
    emptied = start + tail.length === 0;
  } finally {
    fs.closeSync(fd);
  }
  if (emptied && receipt.create) {
    const st = fs.lstatSync(receipt.path);
    if (st.isFile() && st.size === 0) {
      unlinkSync(fs, receipt.path);
      return { status: "removed", deleted: true };
    }
  }
  return { status: "removed" };
}
