// Facts written by hand for the pure tests of the PATH entry (spec: "PATH"):
// a home, its bundled bin and launcher, the two marked lines, and facts()
// building PathFacts from a few files. Shared by test/unit/path/*.test.ts.
import type { Platform } from "../../../src/core/layout";
import type { FileFacts, PathFacts } from "../../../src/path/entry-plan";

export const H = "/home/u";
export const BIN = `${H}/.gentle-shell/bin`;
export const LAUNCHER = `${BIN}/gentle-shell`;
export const LINE = `export PATH="${BIN}:$PATH" # gentle-shell bundled install`;
export const FISH = `set -gx PATH '${BIN}' $PATH # gentle-shell bundled install`;

export type Fact = Partial<FileFacts> & Pick<FileFacts, "node">;
export const file = (content: string, more: Partial<FileFacts> = {}): Fact => ({ node: "file", writable: true, content, ...more });
export const absent = (writable = true): Fact => ({ node: "absent", writable, content: null });
export const link = (linkTarget: string, content: string | null = null): Fact => ({ node: "link", linkTarget, content, writable: false });

export function facts(
  o: { platform?: Platform; env?: Record<string, string>; files?: Record<string, Fact>; userPath?: PathFacts["userPath"]; bin?: string } = {},
): PathFacts {
  const files: Record<string, FileFacts> = {};
  for (const [path, f] of Object.entries(o.files ?? {})) {
    files[path] = { path, linkedFolder: null, writable: false, content: null, ...f };
  }
  const bin = o.bin ?? BIN;
  return {
    platform: o.platform ?? "linux",
    home: H,
    env: { PATH: "/usr/bin:/bin", ...o.env },
    bin,
    launcher: `${bin}/gentle-shell`,
    files,
    userPath: o.userPath,
  };
}
