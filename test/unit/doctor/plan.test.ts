/**
 * doctor's plan (issue 41), pure: the grouped lines with each repair's
 * sentence, the closing line, the exit code (warnings are healthy), the
 * document without the internal fix actions, fitting the schema; and the
 * manager told from a command's real path.
 */
import { describe, expect, it } from "vitest";
import { closingLine, type Check, doctorDocument, doctorExitCode, doctorLines, type DoctorReport } from "../../../src/commands/doctor/plan";
import { managerOf } from "../../../src/commands/doctor/on-path";
import { stagingOwner } from "../../../src/io/staging";
import { schemaErrors } from "../../support/result-schema";

const ok: Check = { group: "install", id: "install.active", status: "ok", line: "active version 4.1.0-0.70.2" };
const edited: Check = {
  group: "launcher",
  id: "launcher.bytes",
  status: "broken",
  line: "~/.gentle-shell/bin/gentle-shell was edited",
  repair: { kind: "fix", sentence: "gentle-shell doctor --fix writes it again" },
  action: { do: "launcher" },
};
const shadow: Check = {
  group: "path",
  id: "path.command:/usr/bin/gentle-shell",
  status: "warn",
  line: "gentle-shell on PATH: /usr/lib/node_modules/gentle-pi/bin/gentle-shell.mjs (a global npm install)",
  repair: { kind: "command", sentence: "gentle-shell-setup migrate moves it into this install and removes the global package" },
};
const report = (checks: Check[], repaired: string[] = []): DoctorReport => ({ installed: true, prefix: "~/.gentle-shell", checks, repaired });

describe("the plan's lines", () => {
  it("one line per check under its group, in the groups' order, each repair under its check, then the closing line", () => {
    expect(doctorLines(report([shadow, edited, ok]), "gentle-shell doctor --fix")).toEqual([
      "install",
      "  ok     active version 4.1.0-0.70.2",
      "launcher",
      "  broken ~/.gentle-shell/bin/gentle-shell was edited",
      "         fix: gentle-shell doctor --fix writes it again",
      "path",
      "  warn   gentle-shell on PATH: /usr/lib/node_modules/gentle-pi/bin/gentle-shell.mjs (a global npm install)",
      "         run: gentle-shell-setup migrate moves it into this install and removes the global package",
      "Gentle Shell in ~/.gentle-shell is broken (3 checks: 1 broken, 1 warning); gentle-shell doctor --fix repairs 1 of them.",
    ]);
  });

  it("what --fix did comes first, one line each", () => {
    const lines = doctorLines(report([ok], ["wrote ~/.gentle-shell/bin/gentle-shell again"]), "gentle-shell doctor --fix");
    expect(lines[0]).toBe("repaired: wrote ~/.gentle-shell/bin/gentle-shell again");
    const failed = doctorLines(report([edited], ["could not repair: the disk is full"]), "gentle-shell doctor --fix");
    expect(failed[0]).toBe("could not repair: the disk is full");
    expect(lines.at(-1)).toBe("Gentle Shell in ~/.gentle-shell is healthy (1 check: 0 broken, 0 warnings).");
  });

  it("the closing line says when --fix repairs everything, and when nothing is installed", () => {
    expect(closingLine(report([edited]), "gentle-shell-setup doctor --fix")).toBe(
      "Gentle Shell in ~/.gentle-shell is broken (1 check: 1 broken, 0 warnings); gentle-shell-setup doctor --fix repairs it.",
    );
    expect(closingLine({ installed: false, prefix: "~/.gentle-shell", checks: [], repaired: [] }, "x")).toBe(
      "Nothing to check: Gentle Shell is not installed in ~/.gentle-shell.",
    );
  });
});

describe("the exit code and the document", () => {
  it("exit 0 when healthy (a warning included), 1 when anything is broken", () => {
    expect(doctorExitCode(report([ok, shadow]))).toBe(0);
    expect(doctorExitCode(report([ok, edited]))).toBe(1);
    expect(doctorExitCode({ installed: false, prefix: "~/.gentle-shell", checks: [], repaired: [] })).toBe(0);
  });

  it("one document fitting the schema, without the fix actions, its error naming each broken check", () => {
    const doc = doctorDocument(report([ok, edited, shadow]));
    expect(schemaErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({ command: "doctor", ok: false, exitCode: 1, doctor: { installed: true, healthy: false, prefix: "~/.gentle-shell" } });
    expect(doc.error).toBe("Gentle Shell in ~/.gentle-shell is broken: ~/.gentle-shell/bin/gentle-shell was edited");
    expect(JSON.stringify(doc)).not.toContain('"action"');
    const healthy = doctorDocument(report([ok]));
    expect(schemaErrors(healthy)).toEqual([]);
    expect(healthy).toMatchObject({ ok: true, exitCode: 0, error: null });
  });

  it("the schema refuses a check it does not know", () => {
    const doc = doctorDocument(report([ok]));
    (doc.doctor as { checks: unknown[] }).checks.push({ group: "elsewhere", id: "x", status: "fine", line: "x" });
    expect(schemaErrors(doc)).not.toEqual([]);
    expect(schemaErrors({ ...doctorDocument(report([ok])), doctor: { installed: true } })).not.toEqual([]);
  });
});

describe("what the checks read from names", () => {
  it("the manager of a command, from its real path", () => {
    expect(managerOf("/home/u/.gentle-shell/versions/x/node_modules/gentle-pi/bin/gentle-shell.mjs", "/home/u/.gentle-shell")).toBe("ours");
    expect(managerOf("/usr/local/lib/node_modules/gentle-pi/bin/gentle-shell.mjs", "/home/u/.gentle-shell")).toBe("npm");
    expect(managerOf("/home/u/.local/share/pnpm/global/5/node_modules/gentle-pi/bin/gentle-shell.mjs", "/home/u/.gentle-shell")).toBe("pnpm");
    expect(managerOf("/usr/bin/gentle-shell", "/home/u/.gentle-shell")).toBe("unknown");
  });

  it("the owner's pid of a staging name, and none for any other name", () => {
    expect(stagingOwner(".staging-node-4242-0123abcd")).toBe(4242);
    expect(stagingOwner(".download-17-deadbeef.tar.gz")).toBe(17);
    expect(stagingOwner(".path-entry.json.tmp-99-00ff00ff")).toBe(99);
    expect(stagingOwner(".gentle-shell-setup.lock")).toBeNull();
    expect(stagingOwner("node-24.21.0")).toBeNull();
    expect(stagingOwner(".gentle-shell-runtime")).toBeNull();
  });
});
