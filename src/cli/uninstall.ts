/**
 * `gentle-shell-setup uninstall [--dry-run] [--yes] [--include-shared]`
 * (issue 14): hands over to the installed launcher's own
 * `gentle-shell self-uninstall`, which owns the plan, the questions and the
 * removal (spec: "gentle-shell self-uninstall"), and returns its exit code.
 * When no install exists (installedLayout, with no launcher there) it says so and exits 0, changing nothing. On
 * Windows the .cmd launcher cannot start without a shell, so the active
 * version's engine runs with our node, as the .cmd does.
 *
 * An install the launcher can no longer start (a self-uninstall killed
 * partway: no active version, its engine, Node or Pi gone) is finished here,
 * with this binary's own self-uninstall: the same plan, checks and lock, so
 * an interrupted uninstall is never finished by reinstalling.
 */
import { errnoCode } from "../core/errno";
import type { Host } from "../io/host";
import { runAttached } from "../io/process";
import { defineCommand } from "citty";
import { join } from "../core/native-path";
import { engineArgs } from "../core/engine-flags";
import type { Env } from "../core/environment";
import { EXIT } from "../core/errors";
import { tildify, type Layout } from "../core/layout";
import { lstatOrNull, readTextOrNull } from "../io/files";
import { readCurrent } from "../install/activate";
import { CMD_MARKER, LAUNCHER_MARKER } from "../install/launcher";
import { ENGINE_PATH } from "../install/engine-start";
import { hostOf } from "./command-host";
import { installedLayout } from "./install-run";
import { OWNED_ENTRIES } from "../commands/self-uninstall/removal-plan";
import { promises as fs } from "node:fs";

export const uninstallCommand = defineCommand({
  meta: { name: "uninstall", description: "Remove Gentle Shell: hands over to the installed gentle-shell self-uninstall" },
  args: {
    "dry-run": { type: "boolean", description: "Print what would be removed and remove nothing" },
    yes: { type: "boolean", alias: "y", description: "Remove without asking" },
    "include-shared": { type: "boolean", description: "Also remove the Gentle Shell home (~/.gentle-shell/agent) and the launcher's config.json" },
    json: {
      type: "boolean",
      description: "Write one JSON document on stdout (whether an install was found, and its folder); the launcher's lines go to stderr",
    },
  },
  async run({ args, data }) {
    const host = hostOf(data);
    const { out } = host;
    const forwarded = [...(args["dry-run"] ? ["--dry-run"] : []), ...(args.yes ? ["--yes"] : []), ...(args["include-shared"] ? ["--include-shared"] : [])];
    const found = installedLayout(host);
    const launcher = (await lstatOrNull(found.launcher))?.isFile() === true;
    // Without its launcher, what an interrupted self-uninstall left of ours in the prefix is still an install to finish.
    const left = launcher ? [] : await ownedLeft(found);
    const layout = launcher || left.length ? found : null;
    Object.assign(host.document?.fields ?? {}, {
      installed: layout !== null,
      prefix: layout ? tildify(layout.prefix, host.home) : null,
      dryRun: Boolean(args["dry-run"]),
    });
    if (!layout) {
      out(`Gentle Shell is not installed (no launcher at ${tildify(found.launcher, host.home)}); nothing to uninstall.`);
      return EXIT.ok;
    }
    const broken = launcher ? await whyNotRunnable(layout, host) : `its launcher is gone, and ${left.join(", ")} ${left.length === 1 ? "is" : "are"} left`;
    if (broken) {
      out(`The installed Gentle Shell cannot run (${broken}), so gentle-shell-setup finishes removing it itself.`);
      const { selfUninstallBound } = await import("../commands/self-uninstall/bound");
      return await selfUninstallBound(layout, host, {
        dryRun: Boolean(args["dry-run"]),
        yes: Boolean(args.yes),
        includeShared: Boolean(args["include-shared"]),
      });
    }
    return await handOver(layout, forwarded, host);
  },
});

/** The entries an install writes (self-uninstall's OWNED_ENTRIES) that are still in the prefix. */
async function ownedLeft(layout: Layout): Promise<string[]> {
  const names = await fs.readdir(layout.prefix).catch(() => [] as string[]);
  return OWNED_ENTRIES.filter((name) => names.includes(name));
}

/** Why the installed launcher cannot start its self-uninstall (what its engine checks first), or null when it can. */
async function whyNotRunnable(layout: Layout, host: Pick<Host, "env" | "pins">): Promise<string | null> {
  const id = await readCurrent(layout).catch(() => null);
  if (!id) return "it has no active version";
  if (!(await lstatOrNull(layout.node))?.isFile()) return "its Node is gone";
  const { PrivateInstallError, resolvePrivateInstall } = await import("../installed/private-install");
  try {
    await resolvePrivateInstall(join(layout.versions, id, ENGINE_PATH), { env: host.env, platform: layout.platform, home: layout.home, pins: host.pins });
    return null;
  } catch (error) {
    if (error instanceof PrivateInstallError || errnoCode(error) === "ENOENT") return (error as Error).message.replace(/\.$/, "");
    throw error;
  }
}

/** `gentle-shell self-uninstall <flags>` with the terminal inherited; its exit code. */
async function handOver(layout: Layout, forwarded: string[], host: Host): Promise<number> {
  const { env } = host;
  // Only our own launcher is run: a file of someone else's at its path is never started.
  const marker = layout.platform === "win32" ? CMD_MARKER : LAUNCHER_MARKER;
  if (!((await readTextOrNull(layout.launcher)) ?? "").split(/\r?\n/).includes(marker)) {
    host.err(`gentle-shell-setup: ${tildify(layout.launcher, layout.home)} was not written by gentle-shell-setup, so it is not run; nothing was removed.`);
    return EXIT.failure;
  }
  let command = layout.launcher;
  let argv = ["self-uninstall", ...forwarded];
  let childEnv: Env = env;
  if (layout.platform === "win32") {
    const id = await readCurrent(layout);
    if (!id) {
      host.err("gentle-shell-setup: no active Gentle Shell version; run the Gentle Shell installer again, then uninstall.");
      return EXIT.failure;
    }
    command = layout.node;
    argv = engineArgs(join(layout.versions, id, ENGINE_PATH), argv);
    // As the .cmd does: the engine runs without the user's NODE_OPTIONS, kept aside for Pi.
    const { NODE_OPTIONS, ...rest } = env;
    childEnv = NODE_OPTIONS === undefined ? rest : { ...rest, GENTLE_SHELL_USER_NODE_OPTIONS: NODE_OPTIONS };
  }
  const ended = await runAttached(command, argv, { env: childEnv, cwd: layout.home, stdout: host.stdoutForChild() });
  if ("error" in ended) {
    host.err(`gentle-shell-setup: ${tildify(command, layout.home)} could not be started (${ended.error}); nothing was removed.`);
    return EXIT.failure;
  }
  return ended.code ?? (ended.signal === "SIGINT" ? EXIT.interrupted : EXIT.failure);
}
