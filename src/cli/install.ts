/**
 * `gentle-shell-setup install`: the plan shown, the one confirmation, the
 * Windows private folder claimed with its real adapter, the install lock,
 * then the steps of src/install/bundled-install.ts and the closing lines.
 * The setup step runs after the lock is released (gentle-shell setup takes
 * it itself); when it fails the install still stands, and the command exits
 * SETUP_FAILED_EXIT so a script can tell that from a failed install (1).
 */
import { createInterface } from "node:readline/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { defineCommand } from "citty";
import { prefixLayout } from "../core/layout";
import { hostPlatform, hostTarget } from "../core/host";
import { buildPins } from "../pins/index";
import type { Env } from "../core/environment";
import { ownScript } from "../io/self";
import { acquireInstallLock } from "../install/lock";
import { runBundledInstall } from "../install/bundled-install";
import { windowsRegistry } from "../install/path/registry";
import { runWindowsPowerShell } from "../io/powershell";
import { STEP_ORDER, type StepOutcome } from "../install/plan";
import { tildify } from "../core/layout";
import { SETUP_COMMAND } from "../install/setup-step";

/** The install succeeded but its setup step failed: distinct from a failed install (1) and a usage error (2). */
export const SETUP_FAILED_EXIT = 3;

const STEP_TEXT: Record<string, string> = {
  claim: "claim the Gentle Shell folder (mode 0700) and the agent home",
  "npm-settings": "copy registry, proxy and auth settings from your npm config (nothing else)",
  runtime: "download and verify Node and pnpm against the pins built into this installer",
  version: "install the release's gentle-pi and Pi from its lockfile with our pnpm",
  activate: "make that version current",
  launcher: "write the gentle-shell launcher",
  "verify-launcher": "check that the launcher reports the release's versions",
  path: "put gentle-shell on your PATH (one line or link, undone by self-uninstall)",
  setup: `run ${SETUP_COMMAND}: Gentle AI for Pi, with its verified Engram, inside the Gentle Shell folder`,
};

export const installCommand = defineCommand({
  meta: { name: "install", description: "Install Gentle Shell into ~/.gentle-shell" },
  args: {
    yes: { type: "boolean", alias: "y", description: "Install without asking" },
    "dry-run": { type: "boolean", description: "Print the plan and change nothing" },
    source: { type: "string", description: "Where artifacts come from: official (default), a mirror URL, or an offline folder" },
    release: { type: "string", description: "Install this exact Gentle Shell version instead of the latest" },
    "modify-path": { type: "boolean", default: true, description: "Add gentle-shell to PATH (--no-modify-path to skip)" },
    setup: {
      type: "boolean",
      default: true,
      description: `Run ${SETUP_COMMAND} at the end (--no-setup to skip; the first interactive gentle-shell then runs it once)`,
    },
    verbose: { type: "boolean", description: "Show pnpm's output" },
  },
  async run({ args }) {
    const env = process.env as Env;
    const platform = hostPlatform();
    const home = (platform === "win32" ? env.USERPROFILE : env.HOME) || homedir();
    const pins = buildPins();
    let layout = prefixLayout({ home, platform, pins });
    const noModifyPath = args["modify-path"] === false || env.GENTLE_SHELL_NO_MODIFY_PATH === "1";
    const noSetup = args.setup === false;
    const out = (line: string) => process.stdout.write(line + "\n");

    out(`Gentle Shell will be installed into ${tildify(layout.prefix, home)}:`);
    for (const id of STEP_ORDER) {
      if (id === "path" && noModifyPath) out(`  - path: skipped (--no-modify-path); the line to add is printed at the end`);
      else if (id === "setup" && noSetup) out(`  - setup: skipped (--no-setup); the first interactive gentle-shell runs ${SETUP_COMMAND} once`);
      else out(`  - ${id}: ${STEP_TEXT[id]}`);
    }
    out(`Artifacts from: ${args.source ?? "the official downloads"}`);
    out("Your own node, npm, pnpm and ~/.npmrc are not changed.");
    if (args["dry-run"]) {
      out("Dry run: nothing was changed.");
      return;
    }
    if (!args.yes) {
      if (!process.stdin.isTTY) {
        throw new Error("no terminal to ask for confirmation; run again with --yes to install");
      }
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      const answer = await rl.question("Proceed? [Y/n] ").catch(() => "n");
      rl.close();
      if (!/^(y|yes|)$/i.test(answer.trim())) {
        out("Cancelled: nothing was changed.");
        process.exitCode = 1;
        return;
      }
    }

    let claimed: string;
    if (platform === "win32") {
      // The private folder (spec: "Layout"): LOCALAPPDATA first, the fallback only on an untrusted owner or ACL.
      const { ensureWindowsPrivateFolder } = await import("../install/windows-private/rule");
      const { windowsPrivateFolderAdapter } = await import("../install/windows-private/adapter");
      const folder = await ensureWindowsPrivateFolder(env, windowsPrivateFolderAdapter({ env }));
      layout = prefixLayout({ home, platform, pins, windowsPrefix: folder.prefix });
      const { promises: fs } = await import("node:fs");
      await fs.mkdir(layout.agent, { recursive: true });
      claimed = folder.created ? "created" : "already there";
      if (folder.fallback) claimed += ` (fallback: ${folder.firstRejected ?? "the first folder was rejected"})`;
    } else {
      const { claimPrefix } = await import("../install/claim");
      claimed = await claimPrefix(layout);
    }
    const lock = await acquireInstallLock(layout, 120_000, (pid) => out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`));
    // Upgrades and setup fetch from where this install did.
    const { rememberSource } = await import("../engine/upgrade");
    // A folder is remembered by its full path, so setup and upgrade find it from anywhere.
    const remembered = args.source && !/^https?:\/\//i.test(args.source) && args.source !== "official" ? resolve(args.source) : args.source;
    let result: Awaited<ReturnType<typeof runBundledInstall>>;
    try {
      result = await runBundledInstall({
        layout,
        pins,
        target: hostTarget(),
        env,
        source: args.source,
        release: args.release,
        noModifyPath,
        // Windows' user Path: the real HKCU adapter, through the one PowerShell runner.
        registry: platform === "win32" ? windowsRegistry(runWindowsPowerShell) : undefined,
        engine: ownScript,
        claimed,
        verbose: args.verbose,
        setup: noSetup ? "skip" : "run",
        installed: async () => {
          await rememberSource(layout, remembered);
          await lock.release();
        },
        report: (o: StepOutcome) => out(reportLine(o)),
      });
    } finally {
      await lock.release();
    }
    if (!result.ok) {
      const failed = result.outcomes.find((o) => o.status === "failed");
      out(`Gentle Shell was not installed: the ${failed?.id} step failed. Fix what it says and run the installer again; finished steps are reused.`);
      process.exitCode = 1;
      return;
    }
    out(`Gentle Shell is installed: ${tildify(layout.launcher, home)}`);
    if (result.path) out(result.path.nextStep);
    if (result.shadow) out(result.shadow);
    if (result.setup?.status === "failed") {
      out(
        `Gentle AI is not set up yet, because the setup step failed; Gentle Shell works without it, and you can run ${SETUP_COMMAND} to try again (the first interactive gentle-shell also tries it once).`,
      );
      process.exitCode = SETUP_FAILED_EXIT;
    }
  },
});

function reportLine(o: StepOutcome): string {
  if (o.status === "done") return `✔ ${o.id}: ${o.detail}`;
  if (o.status === "skipped") return `- ${o.id}: skipped (${o.detail})`;
  return `✖ ${o.id} failed: ${o.detail}`;
}
