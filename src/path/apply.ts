/**
 * Applying the PATH entry and taking it back (spec: "PATH", and "PATH
 * first" in "Self-uninstall"): only the planned change, a receipt for it,
 * and exactly what that receipt records undone: our link, our line (in
 * `profile-file.ts`) or our entry of the Windows user Path.
 */
import { errnoCode } from "../core/errno";
import * as nodeFs from "node:fs";
import { dirname } from "../core/native-path";
import type { PathIoOptions } from "./fs";
import { unlinkSync } from "../io/locked-retry";
import type { PathEntryPlan } from "./entry-plan";
import { assertRealFolders } from "./probe";
import { appendLine, removeLine } from "./profile-file";
import type { PathReceipt, RemoveResult } from "./receipt";
import { type RegistryAdapter, requireRegistry } from "./windows-registry";
import { userPathAppend, userPathHolds, userPathRemove } from "./user-path";

/**
 * spec PATH: applies only the planned change and returns its receipt. A
 * "none" plan gives a receipt with applied: false (never reverted). Manual
 * and impossible plans have nothing to apply and throw.
 */
export async function applyPathEntry(plan: PathEntryPlan, options: PathIoOptions & { home: string }): Promise<PathReceipt> {
  const fs = options.fs ?? nodeFs;
  switch (plan.kind) {
    case "none": {
      const e = plan.existing;
      if (e.kind === "link") return { schema: 1, kind: "link", applied: false, path: e.path, target: e.target };
      if (e.kind === "line") return { schema: 1, kind: "profile", applied: false, path: e.file, line: e.line, create: false, separator: "" };
      return { schema: 1, kind: "registry", applied: false, key: e.key, name: e.name, entry: e.entry };
    }
    case "link": {
      const dir = dirname(plan.path);
      assertRealFolders(plan.path, options.home, fs);
      if (!fs.lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
      fs.symlinkSync(plan.target, plan.path);
      return { schema: 1, kind: "link", applied: true, path: plan.path, target: plan.target };
    }
    case "line":
      return appendLine(plan, options.home, fs);
    case "registry": {
      const registry = requireRegistry(options.registry);
      const current = await registry.readUserPath();
      const receipt = { schema: 1 as const, kind: "registry" as const, key: plan.key, name: plan.name, entry: plan.entry };
      if (current && userPathHolds(current.value, plan.entry)) return { ...receipt, applied: false };
      await registry.writeUserPath({ value: userPathAppend(current?.value ?? "", plan.entry), type: current?.type ?? "REG_EXPAND_SZ" });
      // The entry is in the registry now: the receipt must follow whatever the announcement does.
      await announce(registry);
      return { ...receipt, applied: true };
    }
    case "manual":
      throw new Error(`nothing to apply: ${plan.file} must be edited by hand`);
    case "impossible":
      throw new Error(`nothing to apply: ${plan.reason}`);
  }
}

/**
 * spec PATH / "Self-uninstall": takes back exactly what the receipt records.
 * Never reverts applied: false. Throws when the change cannot be undone.
 */
export async function removePathEntry(receipt: PathReceipt, options: PathIoOptions = {}): Promise<RemoveResult> {
  if (!receipt.applied) return { status: "not-applied" };
  const fs = options.fs ?? nodeFs;
  switch (receipt.kind) {
    case "link": {
      let st: nodeFs.Stats;
      try {
        st = fs.lstatSync(receipt.path);
      } catch (e) {
        if (errnoCode(e) === "ENOENT") return { status: "absent" };
        throw e;
      }
      if (!st.isSymbolicLink() || fs.readlinkSync(receipt.path) !== receipt.target) {
        return { status: "kept", path: receipt.path, reason: "it no longer links to the bundled launcher" };
      }
      unlinkSync(fs, receipt.path);
      return { status: "removed" };
    }
    case "profile":
      return removeLine(receipt, fs);
    case "registry": {
      const registry = requireRegistry(options.registry);
      const current = await registry.readUserPath();
      if (!current || !userPathHolds(current.value, receipt.entry)) return { status: "absent" };
      await registry.writeUserPath({ value: userPathRemove(current.value, receipt.entry), type: current.type });
      await announce(registry);
      return { status: "removed" };
    }
  }
}

/**
 * WM_SETTINGCHANGE, best effort: a window that does not answer or a
 * PowerShell that fails never undoes a registry write that succeeded. New
 * terminals started by Explorer then get the new Path after the next sign-in.
 */
async function announce(registry: RegistryAdapter): Promise<void> {
  try {
    await registry.broadcastEnvironmentChange();
  } catch {
    // Best effort (above).
  }
}
