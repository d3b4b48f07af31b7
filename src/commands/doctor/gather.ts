/**
 * `doctor`'s checks (issue 41), read and never written: what status gathers
 * (../status/gather.ts: markers, the active version, runtimes, the launcher's
 * check, the PATH receipt), then what status does not read: the launcher's
 * and the guard's bytes against what this version writes, Pi's npm entry and
 * npmCommand, the fd and rg placed in the agent home, the setup marker,
 * leftovers of an interrupted run (./leftovers.ts), the PATH line or link
 * the receipt names, a new terminal's shell finding our launcher
 * (./login-shells.ts), every other gentle-shell on PATH (./on-path.ts) and
 * free space. Each becomes one Check of ./plan.ts.
 */
import { tildify, type Layout } from "../../core/layout";
import { join } from "../../core/native-path";
import { PI_TOOLS, toolPin } from "../../core/pi-tool-rules";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { cmdLauncher, GUARD_MARKER, guardScript, posixLauncher } from "../../install/launcher";
import { toolPresence } from "../../install/runtime/pi-tools-presence";
import { gatherStatus, type StatusReport } from "../status/gather";
import { agentHomeIsOurs, npmCliOf, piNpmCommandInPlace } from "../../installed/pi-settings";
import { setupMarkerPath } from "../../installed/setup-marker";
import { isMarkedRuntime } from "../../install/runtime/marker";
import type { Check } from "./plan";
import type { DoctorContext } from "./context";

export type { DoctorContext };
import { leftoverChecks } from "./leftovers";
import { pathChecks } from "./path-entry";
import { onPathChecks } from "./on-path";
import { doctorLoginShells } from "./login-shells";
import { memoryCheck, updatesCheck } from "./settings";
import { machineChecks } from "./machine";
import { runtimeChecks } from "./runtimes";
import { doctorFix } from "../../core/repair-command";

export function reinstallSentence(): string {
  return "run the Gentle Shell installer again (gentle-shell-setup install); the finished steps are reused";
}

function installChecks(status: StatusReport): Check[] {
  const out: Check[] = [];
  const active = status.active;
  if (!active) {
    out.push({
      group: "install",
      id: "install.active",
      status: "broken",
      line: `no active version (${status.prefix}/current is missing or unreadable)`,
      // A self-uninstall killed partway leaves no active version too (src/install/launcher.ts's hint).
      repair: { kind: "command", sentence: `${reinstallSentence()}; if Gentle Shell was being removed, finish removing it with gentle-shell-setup uninstall` },
    });
  } else if (active.state !== "valid" || !active.shell || !active.pi) {
    out.push({
      group: "install",
      id: "install.active",
      status: "broken",
      line: `current names versions/${active.id}, which is not a finished install (${active.state})`,
      repair: { kind: "command", sentence: reinstallSentence() },
    });
  } else {
    out.push({ group: "install", id: "install.active", status: "ok", line: `active version ${active.id} (gentle-pi ${active.shell}, Pi ${active.pi})` });
  }
  for (const v of status.kept.filter((k) => k.state === "valid" || k.state === "foreign")) {
    const ok = v.state === "valid";
    out.push({
      group: "install",
      id: `install.kept:${v.id}`,
      status: ok ? "ok" : "warn",
      line: ok ? `kept version ${v.id}` : `versions/${v.id} is not ours (no version marker); it is left as it is`,
    });
  }
  return out;
}

async function launcherChecks(ctx: DoctorContext, status: StatusReport): Promise<Check[]> {
  const { layout } = ctx;
  const l = status.launcher;
  if (!l) return [];
  const fix = doctorFix(ctx.program);
  const out: Check[] = [];
  if (l.file === "missing") {
    out.push({
      group: "launcher",
      id: "launcher.bytes",
      status: "broken",
      line: `${l.path} is missing`,
      repair: { kind: "fix", sentence: `${fix} writes it again` },
      action: { do: "launcher" },
    });
  } else if (l.file === "foreign") {
    out.push({
      group: "launcher",
      id: "launcher.bytes",
      status: "broken",
      line: `${l.path} is not Gentle Shell's launcher (a file of someone else's stands there); it is never replaced`,
      repair: { kind: "command", sentence: `move it away (mv ${l.path} ${l.path}.old), then run ${doctorFix("gentle-shell-setup")}` },
    });
  } else {
    const expected = layout.platform === "win32" ? cmdLauncher(layout) : posixLauncher(layout);
    const same = (await readTextOrNull(layout.launcher)) === expected;
    out.push(
      same
        ? { group: "launcher", id: "launcher.bytes", status: "ok", line: `${l.path} is exactly what this version writes` }
        : {
            group: "launcher",
            id: "launcher.bytes",
            status: "broken",
            line: `${l.path} was edited: its bytes differ from what this version writes`,
            repair: { kind: "fix", sentence: `${fix} writes it again` },
            action: { do: "launcher" },
          },
    );
  }
  if (l.file === "ours") {
    if (l.check === "passed") out.push({ group: "launcher", id: "launcher.check", status: "ok", line: `gentle-shell --version reports ${l.detail}` });
    else if (l.check === "failed")
      out.push({
        group: "launcher",
        id: "launcher.check",
        status: "broken",
        line: `gentle-shell --version ${l.detail}`,
        repair: { kind: "command", sentence: reinstallSentence() },
      });
  }
  if (layout.platform !== "win32") {
    const guard = tildify(layout.guard, layout.home);
    const stat = await lstatOrNull(layout.guard);
    const text = stat?.isFile() ? await readTextOrNull(layout.guard) : null;
    if (text === guardScript())
      out.push({ group: "launcher", id: "launcher.guard", status: "ok", line: `the Engram guard ${guard} is exactly what this version writes` });
    else if (stat && !text?.split("\n").includes(GUARD_MARKER))
      out.push({
        group: "launcher",
        id: "launcher.guard",
        status: "broken",
        line: `${guard} is not Gentle Shell's Engram guard; it is never replaced`,
        repair: { kind: "command", sentence: `move it away (mv ${guard} ${guard}.old), then run ${fix}` },
      });
    else
      out.push({
        group: "launcher",
        id: "launcher.guard",
        status: "broken",
        line: `the Engram guard ${guard} is ${stat ? "edited" : "missing"}`,
        repair: { kind: "fix", sentence: `${fix} writes it again` },
        action: { do: "guard" },
      });
  }
  return out;
}

async function piChecks(ctx: DoctorContext, status: StatusReport): Promise<Check[]> {
  const { layout, pins } = ctx;
  const out: Check[] = [];
  const fix = doctorFix(ctx.program);
  const entry = await lstatOrNull(layout.npmEntry);
  const cli = await lstatOrNull(npmCliOf(layout));
  if (!entry?.isFile() || !cli?.isFile()) {
    const missing = tildify(entry?.isFile() ? npmCliOf(layout) : layout.npmEntry, layout.home);
    out.push({
      group: "pi",
      id: "pi.npm-entry",
      status: "broken",
      line: `Pi's npm is incomplete: ${missing} is missing`,
      repair: { kind: "command", sentence: reinstallSentence() },
    });
  } else {
    out.push({ group: "pi", id: "pi.npm-entry", status: "ok", line: `Pi's npm entry ${tildify(layout.npmEntry, layout.home)}` });
    const home = await agentHomeIsOurs(layout);
    const set = await npmCommandSet(layout);
    if (piNpmCommandInPlace(layout)) out.push({ group: "pi", id: "pi.npm-command", status: "ok", line: "Pi's npmCommand names our Node and npm" });
    else if (home !== null) out.push({ group: "pi", id: "pi.npm-command", status: "warn", line: `Pi's npmCommand is not ours to set: ${home}` });
    // Each launch sets it before Pi starts: before the first one, its absence is the ordinary state.
    else if (!set) out.push({ group: "pi", id: "pi.npm-command", status: "ok", line: "Pi's npmCommand is not set yet; the next gentle-shell sets it" });
    else
      out.push({
        group: "pi",
        id: "pi.npm-command",
        status: "warn",
        line: "Pi's npmCommand (agent/settings.json) names another npm than ours",
        repair: { kind: "fix", sentence: `${fix} sets it (only that key), as each launch does` },
        action: { do: "npm-command" },
      });
  }
  for (const tool of PI_TOOLS) {
    const pin = toolPin(pins, tool);
    if (!pin) continue;
    const presence = await toolPresence(layout, tool);
    const shown = tildify(join(layout.agentBin, tool.exe), layout.home);
    const line =
      presence === "ours"
        ? `${tool.name} ${pin.version} placed at ${shown}`
        : presence === "absent"
          ? `${tool.name} is not in ${tildify(layout.agentBin, layout.home)}; the next gentle-shell places it`
          : presence === "ours-outdated"
            ? `${shown} is an older ${tool.name} of ours; the next gentle-shell keeps using it`
            : `${shown} is not the ${tool.name} we placed (Pi uses it as it is)`;
    out.push({ group: "pi", id: `pi.tool:${tool.name}`, status: presence === "ours" || presence === "other" ? "ok" : "warn", line });
  }
  out.push(await setupCheck(ctx, status, fix));
  return out;
}

/**
 * The setup marker. When it is gone but setup's own work is there (the
 * Engram it publishes is ours in the prefix), only the record was lost:
 * --fix writes it back, so the next gentle-shell does not run first-use
 * setup again over a working setup. Without Engram, setup did not finish
 * here, and `gentle-shell setup` is the repair: doctor never runs Gentle AI.
 */
async function setupCheck(ctx: DoctorContext, status: StatusReport, fix: string): Promise<Check> {
  const { layout } = ctx;
  if (await lstatOrNull(setupMarkerPath(layout))) return { group: "pi", id: "pi.setup", status: "ok", line: "setup has run (config/setup.json)" };
  const active = status.active;
  if (active?.state === "valid" && (await isMarkedRuntime(layout.engramDir))) {
    return {
      group: "pi",
      id: "pi.setup",
      status: "warn",
      line: "setup's record config/setup.json is missing, but what setup makes is in place (Engram is published)",
      repair: { kind: "fix", sentence: `${fix} writes the record back` },
      action: { do: "setup-marker", version: active.id },
    };
  }
  return {
    group: "pi",
    id: "pi.setup",
    status: "warn",
    line: "setup has not run here (config/setup.json is missing): the next gentle-shell runs first-use setup",
    repair: { kind: "command", sentence: "gentle-shell setup runs it now and records it" },
  };
}

/** Whether Pi's settings hold an npmCommand at all (whatever it names). */
async function npmCommandSet(layout: Layout): Promise<boolean> {
  try {
    const settings = JSON.parse((await readTextOrNull(join(layout.agent, "settings.json"))) ?? "{}") as Record<string, unknown> | null;
    return settings !== null && typeof settings === "object" && "npmCommand" in settings;
  } catch {
    return true;
  }
}

export interface Gathered {
  status: StatusReport;
  checks: Check[];
}

/** Every check, in the plan's groups; reads only. */
export async function gatherDoctor(ctx: DoctorContext): Promise<Gathered> {
  // The memory decision as setup reads it: the loopback endpoint is asked, nothing is started.
  const status = await gatherStatus({ layout: ctx.layout, pins: ctx.pins, env: ctx.env, probes: ctx.probes, memory: true });
  if (!status.installed) return { status, checks: [] };
  const checks = [
    ...installChecks(status),
    ...(await runtimeChecks(ctx.layout, status, doctorFix(ctx.program), reinstallSentence())),
    ...(await launcherChecks(ctx, status)),
    ...(await piChecks(ctx, status)),
    ...(await leftoverChecks(ctx.layout, ctx.program)),
    ...(await pathChecks(ctx, status)),
    ...(await doctorLoginShells(ctx)),
    ...(await onPathChecks(ctx.layout, ctx.env)),
    ...(await machineChecks(ctx, status.active?.shell ?? null)),
    updatesCheck(status.updates),
    memoryCheck(status.memory, ctx.layout.home),
  ];
  return { status, checks };
}
