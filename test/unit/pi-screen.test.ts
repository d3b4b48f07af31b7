/**
 * The screen classifier (test/support/screen.ts) on real screens of Pi 1.6.0:
 * test/support/screens/<state>.<what>.<columns>.txt, captured in tmux by
 * test/e2e/pi-screens.test.ts (see test/support/screens/README.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { SUPPORT_DIR } from "../support/paths";
import { classifyPiScreen, piFrame } from "../support/screen";

const DIR = join(SUPPORT_DIR, "screens");

interface Capture {
  file: string;
  state: "idle" | "working" | "blocked" | null;
  what: string;
  columns: number;
  screen: string;
}

const captures: Capture[] = readdirSync(DIR)
  .filter((name) => name.endsWith(".txt"))
  .sort()
  .map((file) => {
    const m = /^(idle|working|blocked|none)\.([a-z-]+)\.(\d+)\.txt$/.exec(file);
    if (!m) throw new Error(`${file}: not <state>.<what>.<columns>.txt`);
    const state = m[1] === "none" ? null : (m[1] as Capture["state"]);
    return { file, state, what: m[2]!, columns: Number(m[3]), screen: readFileSync(join(DIR, file), "utf8") };
  });

function capture(file: string): Capture {
  const found = captures.find((c) => c.file === file);
  if (!found) throw new Error(`no capture ${file}`);
  return found;
}

describe("the real screens", () => {
  it("cover idle and working at 20 to 120 columns, the dialogs at 20 and 80, and 19 columns", () => {
    const names = new Set(captures.map((c) => c.file));
    for (const columns of [20, 40, 80, 120]) {
      expect(names).toContain(`idle.idle.${columns}.txt`);
      expect(names).toContain(`working.working.${columns}.txt`);
    }
    for (const columns of [20, 80]) {
      for (const what of ["select", "confirm", "input", "editor", "trust-prompt", "login"]) expect(names).toContain(`blocked.${what}.${columns}.txt`);
    }
    for (const file of [
      "blocked.trust.80.txt",
      "none.trust-clipped.20.txt",
      "blocked.missing-cwd.80.txt",
      "none.model-selector.80.txt",
      "none.idle.19.txt",
      "none.working.19.txt",
    ])
      expect(names).toContain(file);
    // Each one is as wide as its name says: its borders span the terminal.
    for (const c of captures)
      expect(
        c.screen.split("\n").some((line) => line.trimEnd() === "─".repeat(c.columns)),
        c.file,
      ).toBe(true);
  });

  it.each(captures.map((c) => [c.file, c] as const))("%s", (_file, c) => {
    expect(classifyPiScreen(c.screen, c.columns)).toBe(c.state);
  });
});

describe("the detection rules on them", () => {
  it("reads the frame anchored at the bottom: upper border, body, plain lower border, footer", () => {
    const frame = piFrame(capture("idle.idle.80.txt").screen)!;
    expect(frame.upper).toBe("─".repeat(80));
    expect(frame.lower).toBe("─".repeat(80));
    expect(frame.body).toEqual([""]);
    expect(frame.footer).toHaveLength(2);
    expect(frame.footer[0]).toBe("~/p");
  });

  it("working: the upper border starts ── and a braille spinner, also when cut to 20 columns", () => {
    for (const columns of [20, 40, 80, 120]) {
      const frame = piFrame(capture(`working.working.${columns}.txt`).screen)!;
      expect(frame.upper).toMatch(/^── [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working ─+$/);
      expect(frame.upper!.length).toBe(columns);
    }
  });

  it("the old wait (a rule of 20 ─ anywhere) cannot tell idle from working; the classifier can", () => {
    const oldWait = (s: string) => /─{20,}/.test(s);
    for (const columns of [20, 40, 80, 120]) {
      const working = capture(`working.working.${columns}.txt`).screen;
      const idle = capture(`idle.idle.${columns}.txt`).screen;
      expect([oldWait(working), oldWait(idle)]).toEqual([true, true]);
      expect([classifyPiScreen(working, columns), classifyPiScreen(idle, columns)]).toEqual(["working", "idle"]);
    }
  });

  it("blocked: the key hint decides, also wrapped onto continuation lines at 20 columns", () => {
    const frame = piFrame(capture("blocked.select.20.txt").screen)!;
    expect(frame.body.filter((line) => /navigate|select|cancel/.test(line)).length).toBeGreaterThan(1);
    // The editor dialog holds an editor of its own: its key hint sits below that editor's borders.
    expect(classifyPiScreen(capture("blocked.editor.80.txt").screen, 80)).toBe("blocked");
  });

  it("blocked: a startup prompt draws no footer, and at 20 columns its upper border is off the screen", () => {
    const wide = piFrame(capture("blocked.trust-prompt.80.txt").screen)!;
    expect(wide.footer).toEqual([]);
    const narrow = piFrame(capture("blocked.trust-prompt.20.txt").screen)!;
    expect(narrow.upper).toBeNull();
    expect(classifyPiScreen(capture("blocked.trust-prompt.20.txt").screen, 20)).toBe("blocked");
  });

  it("a prompt taller than the terminal that Pi clips loses its lower border: no frame, no rule, though its hint shows", () => {
    const c = capture("none.trust-clipped.20.txt");
    expect(c.screen).toContain("escape/ctrl+c");
    expect(piFrame(c.screen)).toBeNull();
    expect(classifyPiScreen(capture("blocked.trust.80.txt").screen, 80)).toBe("blocked");
  });

  it("a selector list (cursor row and two-space row) withholds idle; its own hint is not a dialog's", () => {
    const c = capture("none.model-selector.80.txt");
    const frame = piFrame(c.screen)!;
    expect(frame.upper).toBe("─".repeat(80));
    expect(frame.body.some((line) => line.startsWith("→ "))).toBe(true);
    expect(classifyPiScreen(c.screen, 80)).toBeNull();
  });

  it("nothing is read below 20 columns, though Pi still draws its frame there", () => {
    for (const what of ["idle", "working"]) {
      const c = capture(`none.${what}.19.txt`);
      expect(c.screen.split("\n").map((line) => line.trimEnd())).toContain("─".repeat(19));
      expect(classifyPiScreen(c.screen, 19)).toBeNull();
    }
    expect(capture("none.working.19.txt").screen).toMatch(/^── [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working ─+ *$/m);
  });
});
