/**
 * One route for each effect (issue 48, item 3), read from the source as
 * one-channel.test.ts reads it:
 * - child processes start only in src/io/ (io/process.ts runs our programs,
 *   captured or on the user's terminal; io/detached.ts starts a server that
 *   outlives us; the rest of io/ holds the login-shell probe, line children,
 *   signal sharing and the Windows process check): nothing above io imports
 *   node:child_process;
 * - the pins come only from the Host (src/io/host.ts builds them once, as
 *   host.pins; a layout carries the ones it was made from): nothing else
 *   calls buildPins();
 * - the platform and the target come from the caller: the Host reads the
 *   process's (host.platform, host.target), and above src/io/ nothing reads
 *   process.platform or process.arch (so no signature defaults to them);
 * - doctor's repair command is spelt once, in src/core/repair-command.ts;
 * - a reply to one of our yes/no questions is read once, by io/confirm.ts.
 * Text that is a program of its own (inside a template string) is read past.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";

const CHILD_PROCESS = /\bfrom\s+["'](node:)?child_process["']|\brequire\(\s*["'](node:)?child_process["']\s*\)|\bimport\(\s*["'](node:)?child_process["']\s*\)/;
const BUILD_PINS = /\bbuildPins\s*\(/;
const DOCTOR_FIX = /doctor --fix/;
const PROCESS_MACHINE = /\bprocess\.(platform|arch)\b/;
const REPLY_READ = /["'](noTerminal|interrupt|answer|end)["']\s+in\s+\w+/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/**
 * Each line of src/ that matches `pattern`, outside the files `allowed` accepts: template strings blanked (code),
 * or with `text`, comments skipped and strings kept (words we print).
 */
function offenders(pattern: RegExp, allowed: (rel: string) => boolean, text = false): string[] {
  const found: string[] = [];
  for (const file of sources(join(REPO_ROOT, "src"))) {
    const rel = relative(REPO_ROOT, file);
    if (allowed(rel)) continue;
    const source = readFileSync(file, "utf8");
    (text ? source : source.replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``")).split("\n").forEach((line, i) => {
      if (text && /^\s*(\/\/|\/?\*)/.test(line)) return;
      if (pattern.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe("one route for each effect", () => {
  it("child processes start only in src/io/", () => {
    expect(offenders(CHILD_PROCESS, (rel) => rel.startsWith("src/io/"))).toEqual([]);
  });

  it("the pins come only from the Host: nothing but src/io/host.ts (and src/pins/, which defines it) calls buildPins()", () => {
    expect(offenders(BUILD_PINS, (rel) => rel === "src/io/host.ts" || rel.startsWith("src/pins/"))).toEqual([]);
  });

  it("the platform and target come from the caller: above src/io/, nothing reads process.platform or process.arch", () => {
    // core/native-path.ts picks this machine's path module; install/engine-start.ts runs before there is a Host.
    const below = (rel: string) => rel.startsWith("src/io/") || rel === "src/core/native-path.ts" || rel === "src/install/engine-start.ts";
    expect(offenders(PROCESS_MACHINE, below)).toEqual([]);
  });

  it("doctor's repair command is written once (src/core/repair-command.ts): no sentence of ours spells doctor --fix", () => {
    expect(offenders(DOCTOR_FIX, (rel) => rel === "src/core/repair-command.ts", true)).toEqual([]);
  });

  it("a reply to our questions is read only by io/confirm.ts (and io/prompt.ts, which makes it)", () => {
    expect(offenders(REPLY_READ, (rel) => rel === "src/io/confirm.ts" || rel === "src/io/prompt.ts")).toEqual([]);
  });

  it("the checks see what they look for", () => {
    expect(REPLY_READ.test('if ("noTerminal" in reply) throw')).toBe(true);
    expect(REPLY_READ.test('"answer" in reply ? reply.answer : null')).toBe(true);
    expect(DOCTOR_FIX.test("const fix = `${ctx.program} doctor --fix`;")).toBe(true);
    expect(CHILD_PROCESS.test('import { spawn } from "node:child_process";')).toBe(true);
    expect(CHILD_PROCESS.test("import type { ChildProcess } from 'child_process';")).toBe(true);
    expect(CHILD_PROCESS.test('const { spawn } = await import("node:child_process");')).toBe(true);
    expect(CHILD_PROCESS.test("// the server code (and node:child_process) loads later")).toBe(false);
    expect(BUILD_PINS.test("const pins = buildPins();")).toBe(true);
    expect(PROCESS_MACHINE.test("platform: string = process.platform")).toBe(true);
    expect(PROCESS_MACHINE.test("process.platformName")).toBe(false);
    expect(BUILD_PINS.test("import { buildPins } from")).toBe(false);
  });
});
