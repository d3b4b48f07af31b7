/**
 * One output channel, one Host (issue 26, issue 40): no module of src/
 * touches the process's stdin, stdout or stderr, or writes to console, except
 * the Host itself (src/io/host.ts, which hands its streams to its channel, its
 * question, its progress bars and its panel) and src/sea/main.ts (the single
 * executable's tiny main script, which answers --version before anything else
 * loads).
 * Likewise only the two entries (src/main.ts, src/launch.ts) set the exit code
 * or end the process, and no module falls back to process.env: the Host is
 * the process (issue 40).
 * Text that is a program of its own (a script handed to another process,
 * inside a template string) is not ours to route and is read past.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";
import { sourceFiles } from "../support/source-files";

const ALLOWED = new Set(["src/io/host.ts", "src/sea/main.ts"]);
const PROCESS_END = /\bprocess\.(exitCode\b|exit\s*\()/;
const ENV_FALLBACK = /\?\?\s*process\.env\b/;
const WRITER = /\bprocess\.(stdout|stderr|stdin)\b|\bconsole\.(log|error|warn|info|debug)\s*\(/;

/** The file with every template string's text blanked (a script for another process lives there). */
function withoutTemplates(text: string): string {
  return text.replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``");
}

describe("one output channel", () => {
  it("nothing in src/ touches stdin, stdout, stderr or console but the Host and the single executable's main script", () => {
    const found: string[] = [];
    for (const file of sourceFiles(join(REPO_ROOT, "src"))) {
      const rel = relative(REPO_ROOT, file);
      if (ALLOWED.has(rel)) continue;
      withoutTemplates(readFileSync(file, "utf8"))
        .split("\n")
        .forEach((line, i) => {
          if (WRITER.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it("only the two entries set the exit code or end the process, and nothing falls back to process.env", () => {
    // Commands return their exit code (issue 40): src/main.ts and src/launch.ts alone hand it to the process.
    const entries = new Set(["src/main.ts", "src/launch.ts"]);
    const found: string[] = [];
    for (const file of sourceFiles(join(REPO_ROOT, "src"))) {
      const rel = relative(REPO_ROOT, file);
      withoutTemplates(readFileSync(file, "utf8"))
        .split("\n")
        .forEach((line, i) => {
          if (PROCESS_END.test(line) && !entries.has(rel)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
          if (ENV_FALLBACK.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
    expect(PROCESS_END.test("process.exitCode = 1;")).toBe(true);
    expect(PROCESS_END.test("process.exit(code.exitAtOnce);")).toBe(true);
    expect(ENV_FALLBACK.test("const env = options.env ?? process.env;")).toBe(true);
  });

  it("the check sees a writer where one is", () => {
    expect(WRITER.test('process.stdout.write("x")')).toBe(true);
    expect(WRITER.test("console.error(what)")).toBe(true);
    expect(WRITER.test("const out = process.stdout;")).toBe(true);
    expect(WRITER.test("Boolean(process.stdin.isTTY)")).toBe(true);
    expect(WRITER.test(withoutTemplates("const s = `console.error(what)`;"))).toBe(false);
  });
});
