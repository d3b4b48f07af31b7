/**
 * Reads a captured tmux screen of Pi's TUI the way the detection rules of
 * pi-runtime-package.md ("Detection", "Dialogs and selectors") do:
 *
 *   classifyPiScreen(await terminal.screen(), 80)   // "idle" | "working" | "blocked" | null
 *
 * Every rule reads the editor frame anchored at the bottom of the screen: an
 * upper border, a body, a plain lower border, then up to four footer lines
 * (Pi's startup prompts draw none). The lower border is the last border on
 * the screen; the upper border is the nearest border above it (a prompt
 * taller than the terminal may have pushed it off the top).
 *
 * - blocked (above working): the body holds a dialog's key hint, whose words
 *   may wrap onto continuation lines;
 * - working: the upper border starts `── ` and a braille spinner;
 * - idle: the upper border is plain (a rule of 20 or more `─`, or a
 *   `↑ N more` / `↓ N more` marker between runs of four or more), unless the
 *   body holds the two rows a selector list draws (a cursor row and a row
 *   indented by exactly two spaces), which withholds idle;
 * - null: anything else, and every screen narrower than 20 columns.
 *
 * The key hints are Pi 1.6.0's (dist/modes/interactive/components/
 * extension-selector.js, extension-input.js, extension-editor.js,
 * trust-selector.js), with any key names, since the keys come from the
 * user's keybindings. Checked against real screens in test/support/screens/
 * (test/unit/pi-screen.test.ts). Not covered: the login steps after the
 * method selector (login-dialog.js hints such as "(escape to cancel)").
 */

export type PiScreenState = "idle" | "working" | "blocked";

/** Pi's frame needs at least this many columns; narrower screens are never classified. */
export const MIN_PI_COLUMNS = 20;

const PLAIN_BORDER = /^(?:─{20,}|─{4,} [↑↓] \d+ more ─{4,})$/;
const BUSY_BORDER = /^── [\u2801-\u28ff]/;
const MAX_FOOTER_LINES = 4;

/** A dialog's key hint, on the body's words joined by single spaces. */
const KEY_HINTS: readonly RegExp[] = [
  // select, confirm (Yes/No), Pi's startup selectors (project trust, missing session cwd), /trust, /login's method
  /(?:^| )↑↓ navigate \S+ (?:select|save) \S+ cancel(?: |$)/,
  // input and editor dialogs (the editor's newline and external-editor hints sit between and after)
  /(?:^| )\S+ submit (?:\S+ newline )?\S+ cancel(?: |$)/,
];

/** The two rows a selector list draws: a cursor row and a row indented by exactly two spaces. */
const CURSOR_ROW = /^ ?[→›] /;
const INDENTED_ROW = /^ {2}\S/;

export interface PiFrame {
  /** The upper border, or null when it is off the top of the screen. */
  upper: string | null;
  body: string[];
  lower: string;
  footer: string[];
}

/** The editor frame anchored at the bottom of `screen`, or null when there is none. */
export function piFrame(screen: string): PiFrame | null {
  const lines = screen.split("\n").map((line) => line.replace(/\s+$/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let lower = -1;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 1 - MAX_FOOTER_LINES); i--) {
    if (PLAIN_BORDER.test(lines[i]!)) {
      lower = i;
      break;
    }
  }
  if (lower < 0) return null;
  let upper = lower - 1;
  while (upper >= 0 && !isBorder(lines[upper]!)) upper--;
  return {
    upper: upper >= 0 ? lines[upper]! : null,
    body: lines.slice(upper + 1, lower),
    lower: lines[lower]!,
    footer: lines.slice(lower + 1),
  };
}

function isBorder(line: string): boolean {
  return PLAIN_BORDER.test(line) || BUSY_BORDER.test(line);
}

/** What Pi's screen shows, by the detection rules; `columns` is the terminal's width. */
export function classifyPiScreen(screen: string, columns: number): PiScreenState | null {
  if (columns < MIN_PI_COLUMNS) return null;
  const frame = piFrame(screen);
  if (!frame) return null;
  const words = frame.body
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ")
    .replace(/\s+/g, " ");
  if (KEY_HINTS.some((hint) => hint.test(words))) return "blocked";
  if (frame.upper === null) return null;
  if (BUSY_BORDER.test(frame.upper)) return "working";
  if (frame.body.some((line) => CURSOR_ROW.test(line)) && frame.body.some((line) => INDENTED_ROW.test(line))) return null;
  return PLAIN_BORDER.test(frame.upper) ? "idle" : null;
}
