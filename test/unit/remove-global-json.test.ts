/**
 * A failed removal of the old global gentle-pi after an install (spec: "The
 * web installer": "A failed removal keeps the outcome and adds removeGlobal {
 * status: "failed", command }"). The user's own npm is a stand-in that reports
 * a global gentle-pi and fails to remove it; the removal's outcome names the
 * command, and install --json's document carries it as removeGlobal, which
 * the schema accepts, and only in that form.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/core/errors";
import { prefixLayout } from "../../src/core/layout";
import { failedRemoval, recordEnd, recordPlan } from "../../src/cli/install-json";
import { documentError, runWithJson } from "../../src/cli/json";
import { removeAfterInstall } from "../../src/cli/migration-wiring";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { scratchDir } from "../support/scratch";
import { streamHost } from "../support/host";

/** A home whose npm (first on PATH) has a global gentle-pi 4.0.0 and refuses to uninstall it. */
async function refusingNpm() {
  const root = scratchDir("gss-remove-global-");
  const home = join(root, "home");
  const tools = join(root, "tools");
  const globalRoot = join(root, "npm-global", "lib", "node_modules");
  await fs.mkdir(join(globalRoot, "gentle-pi"), { recursive: true });
  await fs.writeFile(join(globalRoot, "gentle-pi", "package.json"), '{"name":"gentle-pi","version":"4.0.0"}\n');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(tools, { recursive: true });
  const npm = `#!/bin/sh\nif [ "$1" = root ]; then echo '${globalRoot}'; exit 0; fi\necho "npm error code EACCES" >&2\nexit 243\n`;
  await fs.writeFile(join(tools, "npm"), npm, { mode: 0o755 });
  const env = { HOME: home, PATH: `${tools}:/usr/bin:/bin` };
  const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  return {
    env,
    layout,
    owner: { kind: "manager", manager: "npm", executable: join(tools, "npm"), packageDir: join(globalRoot, "gentle-pi"), version: "4.0.0" } as const,
  };
}

describe("a failed removal of the global gentle-pi", () => {
  it("names the owner's own command, and install --json adds removeGlobal { status: failed, command }", async (ctx) => {
    requires(ctx, "posix-shell");
    const { env, layout, owner } = await refusingNpm();
    const removal = await removeAfterInstall(layout, env, owner);
    expect(removal).toMatchObject({ failed: true, removed: false, command: "npm uninstall -g gentle-pi" });
    expect(removal.detail).toMatch(/^npm uninstall -g gentle-pi did not remove the global gentle-pi \(npm error code EACCES\)/);
    expect(failedRemoval(removal)).toEqual({ status: "failed", command: "npm uninstall -g gentle-pi" });

    const { host, stdout } = streamHost();
    const code = await runWithJson("install", host, async (jsonHost) => {
      recordPlan(jsonHost, { prefix: "~/.gentle-shell", source: "official", dryRun: false, plan: [] });
      documentError(jsonHost, `the remove-global-shell step failed: ${removal.detail}`);
      const step = { id: "remove-global-shell", title: "global Gentle Shell", status: "failed", detail: removal.detail } as const;
      await recordEnd({ document: jsonHost.document, pins: productionPins, env }, layout, [step], null, failedRemoval(removal));
      return EXIT.failure;
    });
    expect(code).toBe(EXIT.failure);
    const doc = onlyDocument(stdout());
    expect(doc).toMatchObject({ command: "install", ok: false, exitCode: 1, removeGlobal: { status: "failed", command: "npm uninstall -g gentle-pi" } });
    // The outcome is kept beside it.
    expect(doc.steps).toEqual([expect.objectContaining({ id: "remove-global-shell", status: "failed" })]);
    expect(schemaErrors(doc)).toEqual([]);
  });

  it("a removal that worked or was never tried adds nothing", () => {
    expect(failedRemoval({ failed: false, command: "pnpm remove -g gentle-pi" })).toBeNull();
    expect(failedRemoval({ failed: false, command: null })).toBeNull();
  });

  it("the schema takes removeGlobal only as { status: failed, command } in an install document with its plan", () => {
    const install = { schema: 1, command: "install", ok: false, exitCode: 1, error: "x", prefix: "~/.gentle-shell", source: "official", dryRun: false };
    const full = { ...install, plan: [], steps: [], state: null, next: null };
    expect(schemaErrors({ ...full, removeGlobal: { status: "failed", command: "pnpm remove -g gentle-pi" } })).toEqual([]);
    expect(schemaErrors({ ...full, removeGlobal: { status: "removed", command: "pnpm remove -g gentle-pi" } })).not.toEqual([]);
    expect(schemaErrors({ ...full, removeGlobal: { status: "failed" } })).not.toEqual([]);
    expect(schemaErrors({ ...full, removeGlobal: { status: "failed", command: "x", detail: "y" } })).not.toEqual([]);
    expect(schemaErrors({ ...install, removeGlobal: { status: "failed", command: "x" } })).not.toEqual([]);
    expect(schemaErrors({ schema: 1, command: "status", ok: true, exitCode: 0, error: null, removeGlobal: { status: "failed", command: "x" } })).not.toEqual(
      [],
    );
  });
});
