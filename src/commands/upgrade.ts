/**
 * gentle-shell upgrade and upgrade --rollback in a bundled install (spec:
 * "gentle-shell upgrade in a bundled install"). The release channel only.
 * Every step before the switch can fail without changing current; a version
 * folder this command installed is removed again when it does.
 */
import { EXIT } from "../core/errors";
import { ensureVersionRuntime } from "../install/runtime/for-version";
import { rememberedSource } from "../install/remembered-source";
import { tildifyText } from "../core/layout";
import { launcherCheckEnvironment, type Env } from "../core/environment";
import { compareVersions, isExactVersion } from "../core/versions";
import { parseSource } from "../core/source";
import { oldEnough, policyRefusal, tooYoungClause, type UpdatePolicy } from "../core/update-policy";
import type { Host } from "../io/host";
import { publishedOf, releaseChoice, shellDocument, updatePolicyOf } from "../installed/update-gate";
import { keptPiWarning, offlineRefusal, pairProject, upgradePair } from "../core/upgrade-pair";
import { redactText } from "../core/secrets";
import { readTextOrNull } from "../io/files";
import { removeOwnFolder } from "../io/own-dir";
import { activateVersion, parseHistory } from "../install/activate";
import { configuredRegistry } from "../install/npm-registry";
import { verifyBundle } from "../install/offline/verify";
import type { Lock } from "../install/lock";
import { installRelease, newestRelease, openReleaseHere, releaseOrigin } from "../install/release-origin";
import { versionState } from "../install/version-install";
import { besidePnpm, lockActiveVersion, verifyAndSwitch, versionModule } from "../installed/version-switch";
import { openVersionModule } from "../installed/module-session";
import type { PrivateInstall } from "../installed/private-install";
import { parseShellCommand, UPGRADE, usageLine } from "./specs";
import { checkSourceReachable } from "../install/source-reachable";
import { stepMark } from "../io/step-times";
import { confirm } from "../io/confirm";

export interface UpgradeArgs {
  rollback: boolean;
  source?: string;
  /** --to: that exact release, also an older one (a downgrade, confirmed first); no minimum age applies. */
  to?: string;
  /** --yes: a downgrade without the question. */
  yes?: boolean;
}

/** What upgrade says and, for a downgrade, asks: the Host's terminal and question when there is one. */
/** What upgrade asks of the Host: its environment, pins and lines, and (for a downgrade) its terminal and question. */
export type UpgradeIo = Pick<Host, "env" | "pins" | "target" | "out" | "err" | "http"> & Partial<Pick<Host, "terminal" | "ask">>;

export function parseUpgradeArgs(args: string[]): UpgradeArgs | string {
  const parsed = parseShellCommand(UPGRADE, args);
  // --help is answered by the engine before this (./index.ts).
  if (parsed.kind !== "ok") return parsed.kind === "refuse" ? parsed.message : usageLine(UPGRADE);
  return upgradeOptions(parsed.given);
}

/** What the spec read, as upgrade's options; a sentence for what the spec allows and upgrade does not. */
export function upgradeOptions(given: ReadonlyMap<string, string | true>): UpgradeArgs | string {
  const channel = given.get("--channel");
  if (channel !== undefined && channel !== "release") return `the ${channel} channel is not supported by a bundled install yet; it follows releases`;
  const source = given.get("--source") as string | undefined;
  if (given.has("--rollback") && source !== undefined) {
    return `--rollback switches to a version that is already installed and takes no --source; ${usageLine(UPGRADE)}`;
  }
  const to = given.get("--to") as string | undefined;
  if (to !== undefined && given.has("--rollback")) return `--rollback and --to each choose the version to switch to; give one; ${usageLine(UPGRADE)}`;
  if (to !== undefined && !isExactVersion(to)) return `--to takes an exact release such as 4.1.0, not ${JSON.stringify(to)}; ${usageLine(UPGRADE)}`;
  if (given.has("--yes") && to === undefined) return `--yes confirms a downgrade, so it goes with --to; ${usageLine(UPGRADE)}`;
  return {
    rollback: given.has("--rollback"),
    ...(source === undefined ? {} : { source }),
    ...(to === undefined ? {} : { to }),
    ...(given.has("--yes") ? { yes: true } : {}),
  };
}

/** `upgrade`, `upgrade --to` or `upgrade --rollback` on the engine's Host (its environment, pins, lines and question); the exit code. */
export async function upgradeInstall(install: PrivateInstall, args: UpgradeArgs, host: UpgradeIo): Promise<number> {
  const { layout } = install;
  const { env } = host;
  const out = host.out;
  let lock: Lock | null = null;
  try {
    // The update policy (issue 41): off stops upgrade (never --rollback) before anything is asked or locked.
    const policy = args.rollback ? null : await updatePolicyOf(layout, env);
    const refusal = policy ? policyRefusal(policy, `gentle-shell upgrade${args.to ? ` --to ${args.to}` : ""}`) : null;
    if (refusal) {
      host.err(`gentle-shell: ${refusal}.`);
      return EXIT.unchanged;
    }
    lock = await lockActiveVersion(layout, install.id, out);
    stepMark("upgrade:locked", env);
    return policy ? await upgrade(install, host, args, policy) : await rollback(install, env, out);
  } catch (error) {
    host.err(`gentle-shell: ${redactText(tildifyText((error as Error).message, layout.home))}`);
    return EXIT.failure;
  } finally {
    if (lock) {
      // Fetched assets and a staged bundle store: ours, under the lock.
      await removeOwnFolder(layout.tmp).catch(() => undefined);
      await lock.release();
    }
  }
}

async function upgrade(install: PrivateInstall, io: UpgradeIo, args: UpgradeArgs, policy: UpdatePolicy): Promise<number> {
  const { layout } = install;
  const { env, pins, out, http } = io;
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  const sourceArg = args.source ?? (await rememberedSource(layout));
  // A folder that is gone (a typo, a USB stick not plugged in) or a mirror that does not answer is said at once.
  if (sourceArg) await checkSourceReachable(sourceArg, { from: args.source ? "--source" : "remembered install source" }, { env, http });
  // An offline bundle names its release: no registry is asked, and pnpm installs from its verified store.
  const origin = await releaseOrigin(sourceArg, io.target);
  const bundle = origin.kind === "bundle" ? origin.bundle : null;
  const registry = bundle ? "" : await configuredRegistry(layout, npmrc, env);
  stepMark("upgrade:registry", env);
  // 1. The release asked for, else the latest (or the bundle's) and its two assets, checked by readDistribution.
  let latest = args.to ?? (await newestRelease(origin, { registry, npmrc, env, http }));
  stepMark("upgrade:newest", env);
  if (!args.to && compareVersions(latest, install.shell) < 0) {
    out(`The ${bundle ? "offline bundle's" : "latest"} Gentle Shell release is ${latest}, older than the active ${install.shell}; nothing was changed.`);
    return EXIT.ok;
  }
  // A bundle gets the whole check of `gentle-shell-setup verify`, from this installed (trusted) engine.
  if (bundle) {
    const check = await verifyBundle(bundle.root, pins, http);
    if (!check.ok) {
      const more = check.problems.length > 1 ? ` (and ${check.problems.length - 1} more)` : "";
      throw new Error(`the offline bundle is not the signed release it claims: ${check.problems[0]}${more}; nothing was changed`);
    }
  }
  // A plain upgrade under a minimum age: the newest release old enough, by its signed manifest's published time.
  const aged = !args.to && policy.minimumAgeMinutes > 0 && compareVersions(latest, install.shell) > 0;
  if (aged && !bundle) {
    const source = parseSource(sourceArg, registry);
    const choice = await releaseChoice({
      policy,
      latest,
      active: install.shell,
      published: (shell) => publishedOf(source, shell, http, layout.pins),
      document: () => shellDocument({ registry, npmrc, env, http }),
    });
    if (choice.kind === "none") return tooYoung(latest, choice.published, policy, out);
    if (choice.skipped)
      out(`Gentle Shell ${latest} ${tooYoungClause(choice.skipped.published, policy)}; upgrading to ${choice.shell}, the newest release old enough.`);
    latest = choice.shell;
  }
  // The signed manifest first; the assets and the release's own engine are checked against it.
  const opened = await openReleaseHere(origin, latest, pins, io.target, registry, http);
  stepMark("upgrade:opened", env);
  if (aged && bundle && !oldEnough(opened.release.signed.published, Date.now(), policy.minimumAgeMinutes)) {
    return tooYoung(latest, opened.release.signed.published, policy, out);
  }
  // --to is bound by the minimum age too (issue 47), unless the machine-wide file allows exact versions.
  if (args.to && !policy.allowExactVersions && !oldEnough(opened.release.signed.published, Date.now(), policy.minimumAgeMinutes)) {
    io.err(
      `gentle-shell: gentle-shell upgrade --to ${args.to} was not run: Gentle Shell ${args.to} ${tooYoungClause(opened.release.signed.published, policy)}; nothing was changed.`,
    );
    return EXIT.unchanged;
  }
  // --to an older release: a downgrade, said first and confirmed (a terminal's question, or --yes).
  if (args.to && compareVersions(args.to, install.shell) < 0 && !(await downgradeConfirmed(args.to, install.shell, args, io))) return EXIT.unchanged;
  const { release } = opened;
  const { distribution } = release;
  // The release's pair, or its gentle-pi with the active Pi when that Pi is newer (kept, no release lockfile).
  const pair = upgradePair(install.pi, distribution.manifest);
  const { id, shell, pi } = pair;
  // 2. Already there.
  if (id === install.id) {
    out(`Gentle Shell ${shell} with Pi ${pi} is already current; nothing was changed.`);
    return EXIT.ok;
  }
  const refusal = bundle ? offlineRefusal(pair) : null;
  if (refusal) throw new Error(refusal);
  if (pair.lockfile === "none") out(keptPiWarning(pair));
  // 3. Install it in place beside the active version.
  out(
    `Installing Gentle Shell ${shell} with Pi ${pi}${bundle ? " from the offline bundle" : ""} (signature verified${release.engineDownloaded ? "; it brings its own engine" : ""})...`,
  );
  const go = layout.platform === "win32";
  // Our pinned runtime first (with Go on Windows): a missing or damaged one is acquired again from the source.
  if (!bundle) await ensureVersionRuntime(layout, { env, http, target: io.target }, sourceArg, registry);
  stepMark("upgrade:runtime", env);
  // 4 begins beside pnpm: the new version's module starts once its engine is in the folder.
  const early = besidePnpm({ layout, env, npmrc, sourceArg, id });
  const installed = await installRelease(opened, { layout, env, go, project: pairProject(pair, distribution), alongside: early }).catch((error: Error) => {
    // The version install has removed the folder it claimed; current never moved.
    throw pair.lockfile === "none" ? new Error(`${error.message}; nothing was changed`) : error;
  });
  await verifyAndSwitch({
    layout,
    env,
    npmrc,
    sourceArg,
    id,
    shell,
    pi,
    previous: install.id,
    ours: installed.status === "installed",
    label: `Gentle Shell ${shell}`,
    out,
    early,
  });
  out(`Gentle Shell ${shell} with Pi ${pi} is now current (was ${install.id}). \`gentle-shell upgrade --rollback\` goes back.`);
  return EXIT.ok;
}

function tooYoung(latest: string, published: string | null, policy: UpdatePolicy, out: (l: string) => void): number {
  const now = policy.allowExactVersions ? ` \`gentle-shell upgrade --to ${latest}\` installs it now.` : "";
  out(`Gentle Shell ${latest} ${tooYoungClause(published, policy)}; nothing was changed.${now}`);
  return EXIT.ok;
}

async function downgradeConfirmed(to: string, active: string, args: UpgradeArgs, io: UpgradeIo): Promise<boolean> {
  io.out(
    `Warning: Gentle Shell ${to} is older than the active ${active}, so this is a downgrade; what the newer one wrote (settings, sessions) stays, and ${to} may not read all of it. \`gentle-shell upgrade --rollback\` comes back.`,
  );
  if (args.yes) return true;
  if (!io.terminal || !io.ask) {
    io.err(
      `gentle-shell: upgrade --to ${to} is a downgrade from ${active}, and there is no terminal to confirm it; add --yes to downgrade. Nothing was changed.`,
    );
    return false;
  }
  if ((await confirm({ ask: io.ask }, `Downgrade to Gentle Shell ${to}? [y/N] `, "no")) === "yes") return true;
  io.out("Nothing was changed.");
  return false;
}

async function rollback(install: PrivateInstall, env: Env, out: (l: string) => void): Promise<number> {
  const { layout } = install;
  const history = parseHistory(await readTextOrNull(layout.history));
  let target: string | null = null;
  for (const id of history) {
    if (id !== install.id && (await versionState(layout, id)).kind === "valid") {
      target = id;
      break;
    }
  }
  if (!target) {
    out("There is no other installed Gentle Shell version to roll back to; nothing was changed.");
    return EXIT.failure;
  }
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  const moduleEnv = launcherCheckEnvironment(layout, { env, npmrc });
  const sourceArg = await rememberedSource(layout);
  const engine = await versionModule(layout, target);
  // Its own module, started once: its runtime and Engram, then its launcher after the switch.
  const module = await openVersionModule(layout, engine, moduleEnv, { sourceArg, piVersion: false });
  try {
    out(`Using the engine of ${target} (gentle-shell-setup ${module.engineVersion})...`);
    await module.engram();
    await activateVersion(layout, target);
    try {
      await module.ensureLauncher();
    } catch (error) {
      await activateVersion(layout, install.id);
      throw new Error(`the launcher could not be written (${(error as Error).message}); current is back on ${install.id}`);
    }
  } finally {
    await module.close();
  }
  out(`Rolled back: ${target} is current again (was ${install.id}).`);
  return EXIT.ok;
}
