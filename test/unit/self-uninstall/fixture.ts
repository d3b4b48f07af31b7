// A laid-out bundled prefix for the self-uninstall tests (spec: "Self-uninstall"), as the install leaves it, on
// Linux's real file system: POSIX, or Windows' layout (the private folder under LocalAppData with its marker, the
// .cmd launcher, node.exe, the agent home at %USERPROFILE%\.gentle-shell\agent, the HKCU Path receipt).
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../../src/core/layout";
import { productionPins } from "../../../src/pins/production";
import { ensureLauncher } from "../../../src/install/launcher";
import { receiptJson } from "../../../src/path/receipt";
import { USER_PATH_KEY, USER_PATH_NAME } from "../../../src/path/shells";
import { userPathEntry } from "../../../src/path/user-path";
import type { RegistryAdapter } from "../../../src/path/windows-registry";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT } from "../../../src/install/windows-private/rule";
import type { UninstallIo } from "../../../src/commands/self-uninstall/run";
import { has } from "../../support/capabilities";

export const ID = "4.1.0-1.6.0";

export interface Laid {
  root: string;
  home: string;
  layout: Layout;
}

export function scratchRoot(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "gss-uninstall-")));
}

export async function layOut(root: string, platform: Platform): Promise<Laid> {
  const home = join(root, "home");
  const win = platform === "win32";
  const layout = prefixLayout({
    home,
    platform,
    pins: productionPins,
    windowsPrefix: win ? join(home, "AppData", "Local", "gentle-shell") : undefined,
  });
  for (const dir of [layout.pnpm.store, layout.npm.cache, layout.gentleAi, layout.gentleAiConfig, layout.tmp, layout.agent])
    await fs.mkdir(dir, { recursive: true });
  await fs.mkdir(join(layout.versions, ID, "node_modules", "gentle-pi"), { recursive: true });
  await fs.writeFile(join(layout.versions, ID, "node_modules", "gentle-pi", "package.json"), "{}\n");
  await fs.mkdir(join(layout.nodeDir, "node_modules", "npm"), { recursive: true });
  await fs.writeFile(join(layout.nodeDir, "node_modules", "npm", "package.json"), "{}\n");
  await fs.mkdir(dirname(layout.node), { recursive: true });
  await fs.writeFile(layout.node, "a stand-in for node\n");
  await fs.mkdir(join(layout.pnpmDir, "package", "bin"), { recursive: true });
  await fs.writeFile(layout.pnpmEntry, "// pnpm\n");
  await fs.writeFile(layout.history, `${ID}\n`);
  await fs.writeFile(join(layout.pnpm.store, "blob"), "x");
  if (win) {
    await fs.writeFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), WINDOWS_PREFIX_MARKER_TEXT);
    await fs.writeFile(layout.current, `${ID}\r\n`);
    const receipt = { schema: 1, kind: "registry", applied: true, key: USER_PATH_KEY, name: USER_PATH_NAME, entry: userPathEntry(layout.bin) } as const;
    await fs.writeFile(layout.pathReceipt, receiptJson(receipt));
  } else if (has("symlinks")) {
    // current is a link on POSIX; a machine that cannot make one (Windows without the privilege) lays the prefix out without it.
    await fs.symlink(`versions/${ID}`, layout.current);
  }
  await ensureLauncher(layout);
  return { root, home, layout };
}

/** A fake HKCU user Path holding `before` and our entry; `value` is what it holds now. */
export function fakeUserPath(layout: Layout, before: string) {
  const state = { value: `${before};${userPathEntry(layout.bin)}` };
  const registry: RegistryAdapter = {
    readUserPath: async () => ({ value: state.value, type: "REG_EXPAND_SZ" }),
    writeUserPath: async (v) => {
      state.value = v.value;
    },
    broadcastEnvironmentChange: async () => undefined,
  };
  return { state, registry };
}

/** Lines out and err, answers to the questions in turn. */
export function recordingIo(answers: Array<boolean | null> = [], more: Partial<UninstallIo> = {}) {
  const lines: string[] = [];
  const questions: string[] = [];
  const io: UninstallIo = {
    out: (l) => lines.push(l),
    err: (l) => lines.push(`ERR ${l}`),
    ask: async (q) => {
      questions.push(q);
      return answers.shift() ?? null;
    },
    ...more,
  };
  return { io, lines, questions };
}

/** Every path under `dir`, relative, links not followed. */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for (const name of (await fs.readdir(d)).sort()) {
      const path = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      out.push(r);
      const stat = await fs.lstat(path);
      if (stat.isDirectory()) await walk(path, r);
    }
  };
  await walk(dir, "");
  return out;
}
