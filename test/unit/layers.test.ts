/**
 * The layers of src/ (docs/architecture.md), read from every import the
 * source holds, static and `import()` alike, by TypeScript's own scanner:
 * - a file imports only its own layer or lower ones, in the order
 *   main.ts and launch.ts → cli → engine → commands → release → installed →
 *   install → sea → io → core → pins;
 * - no import runs in a circle, file to file (a circle of type imports
 *   included: a module that needs its own user's types is in the wrong place);
 * - every folder of src/ has its place in that order, so a new one is placed
 *   on purpose, not by accident.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "pathe";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";
import { sourceFiles } from "../support/source-files";

/** Highest first. The top-level entry files are the topmost layer. */
const ORDER = ["(entry)", "cli", "engine", "commands", "release", "installed", "install", "path", "sea", "io", "core", "pins"] as const;
const SRC = join(REPO_ROOT, "src");

function layerOf(file: string): string {
  const parts = relative(SRC, file).split("/");
  return parts.length === 1 ? "(entry)" : parts[0]!;
}

const FILES = sourceFiles(SRC);
const KNOWN = new Set(FILES);

/** The files of src/ that `file` imports (relative specifiers, resolved as the bundler resolves them). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const found: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const base = resolve(dirname(file), fileName);
    const hit = [`${base}.ts`, join(base, "index.ts"), base].find((candidate) => KNOWN.has(candidate));
    if (hit) found.push(hit);
  }
  return found;
}

const GRAPH = new Map(FILES.map((file) => [file, importsOf(file)]));

/** Tarjan's strongly connected components of more than one file, or of one file that imports itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.map((f) => relative(SRC, f)).sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}

describe("the layers of src/", () => {
  it("reads the imports it judges (the scanner sees static and import() imports alike)", () => {
    const run = GRAPH.get(join(SRC, "engine/run.ts"))!;
    expect(run).toContain(join(SRC, "engine/launch-part.ts"));
    // run.ts loads the commands' one registry only when a command runs: an import() it must still see.
    expect(run).toContain(join(SRC, "commands/index.ts"));
    expect([...GRAPH.values()].reduce((n, list) => n + list.length, 0)).toBeGreaterThan(FILES.length);
  });

  it("places every folder of src/ in the order", () => {
    const unplaced = [...new Set(FILES.map(layerOf))].filter((layer) => !(ORDER as readonly string[]).includes(layer));
    expect(unplaced, "a folder of src/ the order does not name: place it in ORDER and in docs/architecture.md").toEqual([]);
  });

  it("has no import from a lower layer up to a higher one", () => {
    const rank = (file: string) => (ORDER as readonly string[]).indexOf(layerOf(file));
    const upward = [...GRAPH].flatMap(([file, targets]) =>
      targets.filter((target) => rank(target) < rank(file)).map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    );
    expect(upward).toEqual([]);
  });

  it("has no import circle, file to file", () => {
    expect(circles(GRAPH)).toEqual([]);
  });

  it("finds a circle and an upward import where there is one (the checks can fail)", () => {
    const a = join(SRC, "core/a.ts");
    const b = join(SRC, "core/b.ts");
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([["core/a.ts", "core/b.ts"]]);
    expect(ORDER.indexOf("engine")).toBeLessThan(ORDER.indexOf("commands"));
    expect(layerOf(join(SRC, "main.ts"))).toBe("(entry)");
  });
});
