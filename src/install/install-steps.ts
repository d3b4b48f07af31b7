/**
 * runInstallSteps (spec: "Migration from a global install",
 * runInstallSteps): wires the steps of a new install (their list is
 * STEPS in src/install/step-plan.ts) into the plan and holds the step bodies, in
 * that list's order, including the version
 * step from an offline bundle; the modules they call make the decisions.
 * Once they all passed, a new install runs its setup step
 * (src/install/setup-step.ts), whose failure leaves a working install.
 */
import type { Host } from "../io/host";
import type { Layout } from "../core/layout";
import { launcherCheckEnvironment } from "../core/environment";
import { npmrcRegistry } from "../core/npmrc";
import { parseSource, type Source } from "../core/source";
import { runLauncher } from "../io/process";
import { removeOwnFolder } from "../io/own-dir";
import { watchSpace } from "./space-check";
import { claimPrefix } from "./claim";
import { ensureRuntimes } from "./runtime/index";
import type { RuntimeOutcome } from "./runtime/recipe";
import { acquireGo } from "./runtime/go";
import {
  bundleHolds,
  installRelease,
  newestRelease,
  openRelease,
  releaseOrigin,
  type InstalledRelease,
  type OpenedRelease,
  type ReleaseOrigin,
} from "./release-origin";
import { activateVersion, pruneVersions } from "./activate";
import { ensureLauncher } from "./launcher";
import { runPlan, STEP_ORDER, STEPS, type InstallStepId, type Step, type StepId, type StepOutcome } from "./step-plan";
import { runSetupStep, SETUP_COMMAND } from "./setup-step";
import { configuredRegistry, recordedRegistry } from "./npm-registry";
import { registryAuthorities, userRegistrySettings, writeNpmrcAuth } from "./npm-settings";
import type { RegistryAdapter } from "../path/windows-registry";
import { pathEntryStep, type PathStepOutcome } from "../path/step";
import { completionsStep } from "./completions";
import { rememberSource } from "./remembered-source";
import { hostRuntimeContext } from "./runtime/host-context";
import type { CompletionScripts } from "./completions";

/** The process the steps run in (src/io/host.ts): its environment, pins and target, its lines, its download progress (none when quiet), its HTTP client, and the stdout the setup step's child gets (stderr's under --json). */
export type InstallHost = Pick<Host, "env" | "pins" | "target" | "out" | "err" | "progress" | "stdoutForChild" | "http">;

/** What the user asked of this install: the installer's words, or a migration's. */
export interface InstallChoices {
  /** --source: "official" (default), a mirror URL or an offline folder. */
  source?: string;
  /** --release: an exact Gentle Shell version; default the registry's latest. */
  release?: string;
  noModifyPath: boolean;
  /** The completion scripts the PATH step writes for its shell (issue 42; ./completions.ts); none with --no-completions. */
  completions?: CompletionScripts;
  verbose?: boolean;
  /**
   * The setup step: "run" it, "skip" it (--no-setup; reported as skipped), or
   * "none" (default): a plan without one, as a migration's is.
   */
  setup?: "run" | "skip" | "none";
}

/** What the caller binds around the steps: the seams of its platform, and what it hears as they run. */
export interface InstallBindings {
  /** Windows: the HKCU user Path adapter. */
  registry?: RegistryAdapter;
  engine: () => string;
  /** What claiming the prefix found, when the caller claimed it first (to take the install lock inside it). */
  claimed?: string;
  /**
   * Called once every install step passed and the install's source is
   * remembered (config/install-source), before the setup step: the caller
   * releases the install lock, which `gentle-shell setup` takes itself.
   */
  installed?: () => Promise<void>;
  /**
   * Called with the release's exact pair as soon as its signed manifest is
   * verified, before its version is installed; throwing (or rejecting) fails
   * the step (a migration's gate: a release older than the global Gentle
   * Shell, or the owner probe that waits for the release).
   */
  onRelease?: (shell: string, pi: string) => void | Promise<void>;
  report: (o: StepOutcome) => void;
}

export interface InstallResult {
  outcomes: StepOutcome[];
  id: string | null;
  path: PathStepOutcome | null;
  /** Every install step passed (the setup step aside: its failure leaves a working install). */
  ok: boolean;
  /** The setup step's outcome, or null for a plan without one. */
  setup: StepOutcome | null;
}

/** What the steps found: each field set by the step that finds it, read by the steps after it. */
interface InstallState {
  /** The user's registry, proxy and auth settings (the npm-settings step). */
  npmrc: string;
  /** Where the release comes from, decided once by the runtime step (an offline bundle is opened there). */
  origin: ReleaseOrigin | null;
  /** The release, opened as early as its version is known (the runtime step), else by the version step. */
  opened: Promise<OpenedRelease> | null;
  /** The version the version step installed. */
  installed: InstalledRelease | null;
  path: PathStepOutcome | null;
  /** The registry npm reports, recorded for the first launch's offer: asked while pnpm installs (the version step). */
  registryRecorded: Promise<string | null> | null;
}

/** A field a later step needs from an earlier one: that step ran, or the plan would have stopped there. */
function found<T>(value: T | null, step: StepId): T {
  if (value === null) throw new Error(`the ${step} step has not run`);
  return value;
}

export async function runInstallSteps(host: InstallHost, layout: Layout, choices: InstallChoices, bind: InstallBindings): Promise<InstallResult> {
  const { env, http, pins, target } = host;
  const state: InstallState = { npmrc: "", origin: null, opened: null, installed: null, path: null, registryRecorded: null };
  /** Open the release (asked for, else the newest), its signed manifest first; the migration's gate hears of it at once. */
  const open = async (from: ReleaseOrigin, registry: string): Promise<OpenedRelease> => {
    const shell = choices.release ?? (await newestRelease(from, { registry, npmrc: state.npmrc, env, http }));
    const opened = await openRelease(from, shell, { pins, target, ownEngine: bind.engine, registry, http });
    await bind.onRelease?.(opened.release.signed.shell, opened.release.signed.pi);
    return opened;
  };
  const space = watchSpace(layout, pins, target);

  const run: Record<InstallStepId, () => Promise<string>> = {
    claim: async () => `${layout.prefix} ${bind.claimed ?? (await claimPrefix(layout))}`,
    "npm-settings": async () => {
      const user = await userRegistrySettings(env, layout.home);
      state.npmrc = user.npmrc;
      await writeNpmrcAuth(layout, state.npmrc);
      const kept = state.npmrc.split("\n").filter(Boolean).length;
      return kept ? `${kept} network and registry setting(s) copied from ${user.path}` : `no registry settings in ${user.path}; npm's defaults apply`;
    },
    runtime: async () => {
      // Before the first download: the space the pins know of, against what is free.
      await space.check();
      const from = await releaseOrigin(choices.source, target);
      state.origin = from;
      const { npmrc } = state;
      // pnpm's location is known up front unless the official source must ask our npm for the registry;
      // then pnpm downloads once Node is ready, otherwise both download at once.
      const known = npmrcRegistry(npmrc, env);
      let before: Promise<string> | null = null;
      if (from.kind === "bundle") {
        if (choices.release) bundleHolds(from.bundle, choices.release);
        // Its signed release and every package this machine needs are checked while the runtimes are
        // copied from it, and before any is extracted: a damaged or altered bundle changes nothing.
        state.opened = open(from, "");
        before = state.opened.then((o) => `; offline bundle ${from.bundle.manifest.id}, its signature and ${o.packages?.size ?? 0} packages verified`);
      } else if (known || (choices.release && from.source.kind !== "official")) {
        // The release is known without our npm (named, or the registry is in the npm settings): its signature
        // and assets are checked while the runtimes download, and before any is extracted.
        state.opened = open(from, known ?? "");
        before = state.opened.then((o) => `; Gentle Shell ${o.release.signed.shell}'s signed manifest verified`);
      }
      // Awaited by ensureRuntimes; this only keeps an early failure from being reported as unhandled.
      before?.catch(() => undefined);
      let source: Source = from.kind === "bundle" ? parseSource(choices.source, "") : from.source;
      let asked: Promise<Source> | null = null;
      // pnpm itself comes from the registry: the HTTP client trusts the authorities the npm settings name for it (ca, cafile).
      const official = (): Promise<Source> =>
        (asked ??= Promise.all([configuredRegistry(layout, npmrc, env), registryAuthorities(npmrc, env)]).then(([registry, ca]): Source => {
          http.trustRegistry(registry, ca);
          return { kind: "official", registry };
        }));
      const pnpmSource = source.kind !== "official" ? source : known ? await official() : official;
      const runtimeCtx = () => hostRuntimeContext(host, layout, source);
      const progress = host.progress();
      try {
        // A folder of ours already there is reused only as it was extracted, every byte checked: else it is downloaded again (the road back).
        const { node, pnpm } = await ensureRuntimes({ ...runtimeCtx(), progress }, { pnpmSource, verify: "bytes", ...(before ? { before } : {}) });
        const checked = before ? await before : "";
        if (source.kind === "official") source = typeof pnpmSource === "function" ? await official() : pnpmSource;
        // Windows builds gentle-pi's Gentle AI with Go: ours, never the user's (Ownership rules, Go on Windows).
        const go = layout.platform === "win32" ? await acquireGo({ ...runtimeCtx(), progress }) : null;
        return `${runtimeWord(node)}, ${runtimeWord(pnpm)}${go ? `, ${go.name} ${go.status}` : ""}${checked}`;
      } finally {
        progress.stop();
      }
    },
    version: async () => {
      // The signed manifest first; the assets and the release's own engine are checked against it.
      const opened = await (state.opened ?? open(found(state.origin, "runtime"), await configuredRegistry(layout, state.npmrc, env)));
      // Our npm is there now: an install that has not asked it for the registry (an offline bundle, the registry in no
      // npm settings) asks it while pnpm runs, rather than after the PATH step.
      state.registryRecorded = recordedRegistry(layout, state.npmrc, env, 60_000).catch(() => null);
      const installed = await installRelease(opened, { layout, env, go: layout.platform === "win32" }, choices.verbose ? host.err : undefined);
      state.installed = installed;
      const { shell, pi } = installed.distribution.manifest;
      const how = installed.repaired ? `installed again (it ${installed.repaired})` : installed.status;
      const where = `gentle-pi ${shell} with Pi ${pi} ${how} in versions/${installed.id}`;
      // A bundle's line names it offline, with its packages; a download's, the signature and the release's own engine.
      if (opened.origin.kind === "bundle") return `${where}${installed.note}`;
      return `${where}, signature verified${opened.release.engineDownloaded ? "; the release's own engine" : ""}`;
    },
    activate: async () => {
      const { id } = found(state.installed, "version");
      const { previous } = await activateVersion(layout, id);
      let pruned = "";
      try {
        const { deleted } = await pruneVersions(layout, 2);
        if (deleted.length) pruned = `; removed older ${deleted.join(", ")}`;
      } catch (error) {
        pruned = `; warning: older versions were not pruned (${(error as Error).message})`;
      }
      return (previous && previous !== id ? `current switched from ${previous} to ${id}` : `current is ${id}`) + pruned;
    },
    launcher: async () => {
      const { launcher, status } = await ensureLauncher(layout);
      return `${launcher} ${status}`;
    },
    "verify-launcher": async () => {
      const { shell, pi } = found(state.installed, "version").distribution.manifest;
      // checkLauncher: the environment our pnpm ran in, with no GENTLE_* or PI_* override,
      // so no host NODE_OPTIONS, npm or pnpm setting and no Pi override reaches it.
      const checkEnv = launcherCheckEnvironment(layout, { env, npmrc: state.npmrc });
      const result = await runLauncher(layout, ["--version"], { env: checkEnv, timeoutMs: 120_000 });
      const lines = result.stdout.split(/\r?\n/);
      if (result.code !== 0 || lines[0] !== `gentle-shell ${shell}` || lines[1] !== `pi ${pi}`) {
        throw new Error(
          `the launcher reported ${JSON.stringify(lines.slice(0, 2).join(" / ") || result.stderr.trim().slice(0, 300))}, expected gentle-shell ${shell} / pi ${pi}`,
        );
      }
      return `gentle-shell ${shell}, pi ${pi}`;
    },
    path: async () => {
      const outcome = await pathEntryStep(layout, env, { registry: bind.registry }, choices.noModifyPath);
      state.path = outcome;
      if (outcome.status === "failed") throw new Error(outcome.detail ?? outcome.nextStep);
      const added = outcome.status === "applied" && outcome.file ? `added to ${outcome.file}` : outcome.status;
      // An entry an earlier install left elsewhere was moved (or kept, edited): said on the same line.
      const done = outcome.status === "applied" && outcome.detail ? `${added}; ${outcome.detail}` : added;
      return choices.completions ? `${done}${completionsStep(layout, env, outcome, choices.completions)}` : done;
    },
  };
  const steps: Step[] = STEP_ORDER.filter((id): id is InstallStepId => id !== "setup").map((id) => ({ id, run: run[id] }));
  const outcomes = await runPlan(
    steps.map((step) => space.guard(step)),
    { home: layout.home, env },
    bind.report,
  );
  // tmp/ only when it is a real folder of ours; a link there is left, its target untouched.
  await removeOwnFolder(layout.tmp).catch(() => undefined);
  const ok = outcomes.every((o) => o.status === "done");
  const mode = choices.setup ?? "none";
  let setup: StepOutcome | null = null;
  // The first launch's startup offer then reads the registry npm reports from its record, without starting npm.
  if (ok) await (state.registryRecorded ?? recordedRegistry(layout, state.npmrc, env, 60_000));
  // A failed install still waits for the npm it started.
  else await state.registryRecorded;
  if (ok) {
    // Upgrades and setup fetch from where this install did.
    await rememberSource(layout, choices.source);
    await bind.installed?.();
  }
  if (mode === "run" && ok) {
    const setupStep: Step = { id: "setup", run: () => runSetupStep(layout, { env, id: found(state.installed, "version").id, host }) };
    // Gentle AI's own output follows, on the inherited terminal.
    host.out(`  running ${SETUP_COMMAND}: Gentle AI for Pi, inside the Gentle Shell folder`);
    setup = (await runPlan([setupStep], { home: layout.home, env }, bind.report))[0]!;
  } else if (mode !== "none") {
    setup = ok
      ? { id: "setup", title: STEPS.setup.title, status: "skipped", detail: `--no-setup; the first interactive gentle-shell runs ${SETUP_COMMAND} once` }
      : { id: "setup", title: STEPS.setup.title, status: "not-run", detail: "" };
    if (ok) bind.report(setup);
  }
  if (setup) outcomes.push(setup);
  return { outcomes, id: state.installed?.id ?? null, path: state.path, ok, setup };
}

/** A runtime's part of the step line: installed, reused, or installed again and why. */
function runtimeWord(outcome: RuntimeOutcome): string {
  return outcome.repaired ? `${outcome.name} installed again (it ${outcome.repaired})` : `${outcome.name} ${outcome.status}`;
}
