/** The bench's step marks (src/io/step-times.ts): only with GSS_STEP_TIMES, one JSON line each, never through a link, never failing. */
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stepMark } from "../../src/io/step-times";
import { has, requires } from "../support/capabilities";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gss-step-times-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("stepMark", () => {
  it("appends one JSON line per mark, in order, with increasing times", async () => {
    const file = join(dir, "times");
    const before = Date.now();
    stepMark("claim:start", { GSS_STEP_TIMES: file });
    stepMark("claim:end", { GSS_STEP_TIMES: file });
    const lines = (await fs.readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { mark: string; at: number });
    expect(lines.map((l) => l.mark)).toEqual(["claim:start", "claim:end"]);
    expect(lines[0]!.at).toBeGreaterThanOrEqual(before - 1);
    expect(lines[1]!.at).toBeGreaterThanOrEqual(lines[0]!.at);
    if (has("posix-modes")) expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  });

  it("never writes through a link", async (ctx) => {
    requires(ctx, "symlinks");
    const target = join(dir, "target");
    await fs.writeFile(target, "kept\n");
    await fs.symlink(target, join(dir, "link"));
    expect(() => stepMark("x", { GSS_STEP_TIMES: join(dir, "link") })).not.toThrow();
    expect(await fs.readFile(target, "utf8")).toBe("kept\n");
  });

  it("a place it cannot write only loses the mark", async () => {
    expect(() => stepMark("x", { GSS_STEP_TIMES: join(dir, "missing", "times") })).not.toThrow();
    await expect(fs.lstat(join(dir, "missing"))).rejects.toThrow();
  });
});
