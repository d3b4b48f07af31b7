/**
 * docs/troubleshooting.md's break → command table against doctor's own
 * checks (issue 47, item 1): every check id doctor makes (src/commands/doctor/,
 * a templated one by its fixed part, `runtimes.` for `runtimes.<name>`) has
 * exactly one row, no row names a check doctor does not make, and a row says
 * `--fix` exactly when the code that makes that check offers a repair of kind
 * fix.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";

const DOCTOR = join(REPO_ROOT, "src", "commands", "doctor");

/** Each check id doctor's code makes (a template by the part before its `${`), and whether its code offers a `--fix` repair. */
function doctorChecks(sources: ReadonlyMap<string, string>): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const text of sources.values()) {
    const hits = [...text.matchAll(/\bid(?: =|:) ["`]([a-z][a-z.-]*(?::|\.(?=\$\{))?)/g)].map((m) => ({ id: m[1]!, at: m.index }));
    hits.forEach((h, i) => {
      // From this id to the next one: the object or function that makes that check.
      const region = text.slice(h.at, i + 1 < hits.length ? hits[i + 1]!.at : text.length).slice(0, 1500);
      const fix = /kind: "fix"|\bfix\(/.test(region);
      out.set(h.id, (out.get(h.id) ?? false) || fix);
    });
  }
  return out;
}

/** The table's rows: the check id (a `<…>` part cut, as doctorChecks names a template), and its command cell. */
function tableRows(markdown: string): Map<string, string> {
  const section = markdown.slice(markdown.indexOf("## Break, command, healthy"));
  const rows = new Map<string, string>();
  for (const line of section.split(/\r?\n/)) {
    const m = /^\|\s*`([^`]+)`\s*\|[^|]+\|\s*(.+?)\s*\|$/.exec(line);
    if (!m) continue;
    const id = m[1]!.replace(/<[^>]+>$/, "");
    expect(rows.has(id), `${id} has two rows`).toBe(false);
    rows.set(id, m[2]!);
  }
  return rows;
}

describe("docs/troubleshooting.md's break → command table", () => {
  const sources = new Map(
    readdirSync(DOCTOR)
      .filter((n) => n.endsWith(".ts"))
      .map((n) => [n, readFileSync(join(DOCTOR, n), "utf8")] as const),
  );
  const checks = doctorChecks(sources);
  const rows = tableRows(readFileSync(join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8"));

  it("has one row for each check doctor makes, and none for a check it does not", () => {
    expect(checks.size).toBeGreaterThan(20);
    expect([...rows.keys()].sort()).toEqual([...checks.keys()].sort());
  });

  it("says --fix exactly where doctor's code offers a --fix repair", () => {
    const wrong = [...checks]
      .filter(([id, fix]) => rows.get(id)?.includes("`--fix`") !== fix)
      .map(([id, fix]) => `${id}: doctor ${fix ? "fixes it" : "does not fix it"}`);
    expect(wrong).toEqual([]);
  });

  it("the reading of doctor's code sees an id, a template's fixed part, and a fix repair where they are", () => {
    const seen = doctorChecks(
      new Map([
        ["a.ts", 'out.push({ id: "x.one", line: "l", repair: { kind: "fix", sentence: "s" } });\nout.push({ id: `x.two:${n}`, repair: { kind: "command" } });'],
        ["b.ts", "const id = `runtimes.${r.name}`;\nout.push(fix(what));"],
      ]),
    );
    expect([...seen]).toEqual([
      ["x.one", true],
      ["x.two:", false],
      ["runtimes.", true],
    ]);
  });
});
