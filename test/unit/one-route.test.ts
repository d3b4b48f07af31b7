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
 * - a reply to one of our yes/no questions is read once, by io/confirm.ts;
 * - the Host travels composed, beside a layout (`installHere(host, layout)`),
 *   never spread into a copy (`{ ...host, layout }` read each of its lazy
 *   fields, its HTTP client and its document at once) nor extended by a type
 *   that a copy would have to fill.
 * Comments, and text that is a program of its own (inside a template
 * string), are read past, found by TypeScript's parser.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "pathe";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";
import { sourceFiles } from "../support/source-files";

const CHILD_PROCESS = /\bfrom\s+["'](node:)?child_process["']|\brequire\(\s*["'](node:)?child_process["']\s*\)|\bimport\(\s*["'](node:)?child_process["']\s*\)/;
const BUILD_PINS = /\bbuildPins\s*\(/;
const DOCTOR_FIX = /doctor --fix/;
const PROCESS_MACHINE = /\bprocess\.(platform|arch)\b/;
const REPLY_READ = /["'](noTerminal|interrupt|answer|end)["']\s+in\s+\w+/;
/** A spread of something named a host (`...host`, `...ctx.host`, `...jsonHost`), not of one of its fields (`...host.env`). */
const HOST_SPREAD = /\.\.\.\s*(?:\w+\.)*\w*[hH]ost\b(?!\s*[.?[])/;
const HOST_EXTENDED = /\b(?:extends|implements)\s+(?:Host|(?:Omit|Pick|Partial)<\s*Host)\b|\bHost\s*&|&\s*Host\b/;

/**
 * `text` with its comments blanked, and unless `keepStrings` its template strings too (a program handed to another
 * process lives there), each character a space but line breaks: read by TypeScript's own parser, so a backtick in a
 * comment or a regular expression never opens a template that hides real code.
 */
function blanked(text: string, file: string, keepStrings: boolean): string {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const ranges: Array<[number, number]> = [];
  const seen = new Set<number>();
  const comments = (pos: number) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, pos) ?? []), ...(ts.getTrailingCommentRanges(text, pos) ?? [])]) {
      if (!seen.has(r.pos)) ranges.push([r.pos, r.end]);
      seen.add(r.pos);
    }
  };
  const visit = (node: ts.Node) => {
    comments(node.getFullStart());
    comments(node.getEnd());
    if (!keepStrings && (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node))) ranges.push([node.getStart(sf), node.getEnd()]);
    else ts.forEachChild(node, visit);
  };
  visit(sf);
  const chars = [...text];
  for (const [from, to] of ranges) for (let i = from; i < to; i++) if (chars[i] !== "\n") chars[i] = " ";
  return chars.join("");
}

/**
 * Each line of src/ that matches `pattern`, outside the files `allowed` accepts, comments blanked: template strings
 * blanked too (code), or with `text` kept (words we print).
 */
function offenders(pattern: RegExp, allowed: (rel: string) => boolean, text = false): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(join(REPO_ROOT, "src"))) {
    const rel = relative(REPO_ROOT, file);
    if (allowed(rel)) continue;
    const source = readFileSync(file, "utf8");
    const lines = source.split("\n");
    blanked(source, file, text)
      .split("\n")
      .forEach((line, i) => {
        if (pattern.test(line)) found.push(`${rel}:${i + 1}: ${lines[i]!.trim()}`);
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
    // core/native-path.ts picks this machine's path module (install/engine-start.ts reads the platform only in the
    // launcher script it writes, a template string: another program's).
    const below = (rel: string) => rel.startsWith("src/io/") || rel === "src/core/native-path.ts";
    expect(offenders(PROCESS_MACHINE, below)).toEqual([]);
  });

  it("doctor's repair command is written once (src/core/repair-command.ts): no sentence of ours spells doctor --fix", () => {
    expect(offenders(DOCTOR_FIX, (rel) => rel === "src/core/repair-command.ts", true)).toEqual([]);
  });

  it("a reply to our questions is read only by io/confirm.ts (and io/prompt.ts, which makes it)", () => {
    expect(offenders(REPLY_READ, (rel) => rel === "src/io/confirm.ts" || rel === "src/io/prompt.ts")).toEqual([]);
  });

  it("the Host is composed, never spread into a copy or extended by a type a copy would fill", () => {
    expect(offenders(HOST_SPREAD, () => false)).toEqual([]);
    expect(offenders(HOST_EXTENDED, () => false)).toEqual([]);
  });

  it("the checks see what they look for", () => {
    // A backtick in a comment opens no template: the code after it is still read.
    expect(blanked("// a `\nconst p = process.platform;\n// `\n", "x.ts", false)).toContain("process.platform");
    expect(blanked("const s = `process.platform`;\n", "x.ts", false)).not.toContain("process.platform");
    expect(blanked("const s = `process.platform`;\n", "x.ts", true)).toContain("process.platform");
    expect(blanked("/* process.platform */\n// process.arch\n", "x.ts", true).trim()).toBe("");
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
    expect(HOST_SPREAD.test("return { ...host, layout: prefixLayout(options) };")).toBe(true);
    expect(HOST_SPREAD.test("await recordEnd({ ...jsonHost, layout }, steps);")).toBe(true);
    expect(HOST_SPREAD.test("f({ ...ctx.host })")).toBe(true);
    expect(HOST_SPREAD.test("env: { ...host.env, GENTLE_SHELL_VERIFY_VERSION: id },")).toBe(false);
    expect(HOST_EXTENDED.test("export interface InstallContext extends Host {")).toBe(true);
    expect(HOST_EXTENDED.test("type C = Host & { layout: Layout };")).toBe(true);
    expect(HOST_EXTENDED.test('host: Pick<Host, "env">')).toBe(false);
  });
});
