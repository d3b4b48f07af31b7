/**
 * `gentle-shell doctor`'s words (issue 41): its help from its spec, and a
 * usage error refused in one line with exit 2 before anything is read,
 * still one JSON document on stdout under --json.
 */
import { describe, expect, it } from "vitest";
import type { PrivateInstall } from "../../../src/installed/private-install";
import { classifyLaunch } from "../../../src/core/pi-launch";
import { findEngineCommand, runEngineCommand } from "../../../src/commands/index";
import { onlyDocument, schemaErrors } from "../../support/result-schema";
import { testHost } from "../../support/host";

// Nothing is read: a refused or helped doctor never looks at the install.
const noInstall = {} as PrivateInstall;

async function doctor(args: string[]) {
  const host = testHost();
  const code = await runEngineCommand(findEngineCommand(classifyLaunch(["doctor", ...args], {}))!, { install: noInstall, host });
  return { code, out: host.lines.out, err: host.lines.err };
}

/** A refused doctor under --json: exit 2 and one document fitting the schema; its error. */
async function refusedDocument(args: string[]): Promise<unknown> {
  const json = await doctor(args);
  expect(json.code).toBe(2);
  const doc = onlyDocument(`${json.out.join("\n")}\n`);
  expect(schemaErrors(doc)).toEqual([]);
  expect(doc).toMatchObject({ command: "doctor", ok: false, exitCode: 2 });
  return doc.error;
}

describe("gentle-shell doctor's words", () => {
  it("--help prints its usage and exit codes, exit 0", async () => {
    const r = await doctor(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe("usage: gentle-shell doctor [--fix [--source <mirror or folder>]] [--json]");
    expect(r.out.at(-1)).toBe("Exit codes: 0 healthy (warnings too); 1 something is broken; 2 usage (an unknown option or argument).");
  });

  it("an unknown option: one line, exit 2; under --json also one document fitting the schema", async () => {
    const r = await doctor(["--frobnicate"]);
    expect(r).toEqual({
      code: 2,
      out: [],
      err: ["gentle-shell: unknown option --frobnicate for gentle-shell doctor; usage: gentle-shell doctor [--fix [--source <mirror or folder>]] [--json]"],
    });
    expect(await refusedDocument(["--json", "extra"])).toMatch(/^unexpected argument "extra" for gentle-shell doctor/);
  });

  it("--source without --fix is refused in one line naming the command, exit 2, nothing read; under --json one document", async () => {
    const r = await doctor(["--source", "/media/usb"]);
    expect(r).toEqual({
      code: 2,
      out: [],
      err: ["gentle-shell: --source is used only with --fix (doctor downloads nothing when it only checks); run gentle-shell doctor --fix --source /media/usb"],
    });
    expect(await refusedDocument(["--json", "--source=/media/usb"])).toMatch(/^--source is used only with --fix/);
  });
});
