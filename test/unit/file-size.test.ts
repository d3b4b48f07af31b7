/**
 * No file of ours is over 400 lines (the repository's layout rule). Read
 * from the tree, not from git, so a replayed copy is held to it too. Apart:
 * files we do not write by hand (package-lock.json, the action's bundle in
 * installers/action/dist/, the package managers' published JSON schemas in
 * build/schemas/), and what the runs leave (node_modules, dist, results).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";

const LIMIT = 400;
const FOLDERS = ["src", "test", "build", "bench", "installers", "docs", ".ci", ".github"];
const NOT_OURS = [/^installers\/action\/dist\//, /^build\/schemas\//, /(^|\/)node_modules\//];
const TEXT = /\.(ts|mts|cts|mjs|cjs|js|json|md|sh|ps1|psm1|yml|yaml|toml|txt)$|^\.ci\/[^/.]+$/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || (e.name === "dist" && dir.endsWith("action")) ? [] : files(path);
    return e.isFile() ? [path] : [];
  });
}

const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

describe("file sizes", () => {
  it(`no file of ours is over ${LIMIT} lines`, () => {
    const top = readdirSync(REPO_ROOT).filter((n) => statSync(join(REPO_ROOT, n)).isFile() && n !== "package-lock.json");
    const all = [...top.map((n) => join(REPO_ROOT, n)), ...FOLDERS.flatMap((f) => files(join(REPO_ROOT, f)))];
    const over = all
      .map((file) => relative(REPO_ROOT, file))
      .filter((rel) => TEXT.test(rel) && !NOT_OURS.some((p) => p.test(rel)))
      .map((rel) => ({ rel, lines: lineCount(readFileSync(join(REPO_ROOT, rel), "utf8")) }))
      .filter((f) => f.lines > LIMIT)
      .map((f) => `${f.rel}: ${f.lines} lines`);
    expect(over).toEqual([]);
    expect(all.length, "the walk found the tree").toBeGreaterThan(300);
  });

  it("counts lines as wc -l does", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("")).toBe(0);
  });
});
