/**
 * The single executable's main script (build/build.mjs makes it the SEA's
 * main; sea-config.json). It is tiny: `--version` and the top-level help are
 * answered from texts compiled in (./shortcut.ts). Anything else runs the
 * full installer, the SEA asset engine.cjs (the same bytes each version gets
 * as its engine), compiled here as the CommonJS module it would be as a main
 * script: with this script's require (built-ins only, as for any SEA main).
 */
import { shortcutAnswer, type ShortcutTexts } from "./shortcut";

declare const __GSS_SEA_TEXTS__: ShortcutTexts;
declare const __filename: string;
declare const __dirname: string;

const answer = shortcutAnswer(process.argv.slice(2), process.env, Boolean(process.stdout.isTTY), __GSS_SEA_TEXTS__);
if (answer !== null) {
  process.stdout.write(answer);
} else {
  const sea = require("node:sea") as { getAsset(key: string, encoding: string): string };
  const vm = require("node:vm") as typeof import("node:vm");
  const source = sea.getAsset("engine.cjs", "utf8");
  const installer = vm.compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], {
    filename: __filename,
    // A dynamic import() goes to Node's loader, as in a main script (the installer has none today:
    // Node 24 prints an ExperimentalWarning for it).
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  installer.call(module.exports, module.exports, require, module, __filename, __dirname);
}
