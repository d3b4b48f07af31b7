/**
 * `memory migrate`, the pure part (src/commands/memory/migration-plan.ts): the arguments,
 * the help check, the provider's report and its paths, the interrupted report.
 * The effects run against the fixture Engram in integration/engram-migrate.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  advertisesMigrateCopy,
  checkReportPaths,
  interruptedReport,
  markerText,
  newSiblings,
  parseMigrateArgs,
  parseProviderReport,
  type ProviderReport,
} from "../../src/commands/memory/migration-plan";

const ID = "0123456789abcdef0123456789abcdef";
const SOURCE = "/home/u/.engram";
const good: ProviderReport = {
  source_dir: SOURCE,
  directory: "/home/u/.engram.copy",
  backup_dir: "/home/u/.engram.backup",
  source_instance_id: ID,
  instance_id: ID,
};

describe("arguments", () => {
  it("takes only --confirm-quiescent; anything naming another store is refused", () => {
    expect(parseMigrateArgs(["migrate"])).toEqual({ confirmed: false });
    expect(parseMigrateArgs(["migrate", "--confirm-quiescent"])).toEqual({ confirmed: true });
    for (const extra of ["--data-dir", "/other", "--url=http://x", "-y"]) {
      expect(parseMigrateArgs(["migrate", "--confirm-quiescent", extra])).toMatch(/takes only --confirm-quiescent/);
    }
    expect(parseMigrateArgs(["status"])).toMatch(/unknown memory command "status"/);
  });
});

describe("the help check", () => {
  it("needs migrate-copy listed as a command, not mentioned in passing", () => {
    expect(advertisesMigrateCopy("Commands:\n  serve [port]   Start\n  migrate-copy   Copy and migrate\n")).toBe(true);
    expect(advertisesMigrateCopy("Commands:\r\n\tmigrate-copy\r\n")).toBe(true);
    expect(advertisesMigrateCopy("Commands:\n  serve   Start\n")).toBe(false);
    expect(advertisesMigrateCopy("  migrate-copy-v2   something else\n")).toBe(false);
    expect(advertisesMigrateCopy("unknown command: migrate-copy\n")).toBe(false);
  });
});

describe("the provider's report", () => {
  it("is one JSON object with every field", () => {
    expect(parseProviderReport(`${JSON.stringify(good)}\n`)).toEqual(good);
    expect(parseProviderReport("done")).toBe("its output is not one JSON object");
    expect(parseProviderReport("[1]")).toBe("its output is not one JSON object");
    expect(parseProviderReport(JSON.stringify({ ...good, backup_dir: "" }))).toBe("its report has no backup_dir");
  });

  it("names two new siblings of the source and one identity", () => {
    expect(checkReportPaths(good, SOURCE)).toBeNull();
    expect(checkReportPaths({ ...good, source_dir: "/home/u/other" }, SOURCE)).toMatch(/reports the store/);
    expect(checkReportPaths({ ...good, directory: "/home/u/.engram/copy" }, SOURCE)).toMatch(/directory .* is not a new sibling/);
    expect(checkReportPaths({ ...good, backup_dir: "/tmp/.engram.backup" }, SOURCE)).toMatch(/backup_dir .* is not a new sibling/);
    expect(checkReportPaths({ ...good, backup_dir: SOURCE }, SOURCE)).toMatch(/not a new sibling/);
    expect(checkReportPaths({ ...good, directory: "relative" }, SOURCE)).toMatch(/not an absolute, normalized path/);
    expect(checkReportPaths({ ...good, directory: "/home/u/../u/.engram.copy" }, SOURCE)).toMatch(/not an absolute, normalized path/);
    expect(checkReportPaths({ ...good, backup_dir: good.directory }, SOURCE)).toMatch(/the same path/);
    expect(checkReportPaths({ ...good, instance_id: "ABC" }, SOURCE)).toMatch(/32-hex/);
    expect(checkReportPaths({ ...good, instance_id: "f".repeat(32) }, SOURCE)).toMatch(/differs/);
  });

  it("what a failed run left beside the source: the new names only", () => {
    expect(newSiblings([".engram", ".bashrc"], [".engram", ".bashrc", ".engram.copy-1"], SOURCE)).toEqual(["/home/u/.engram.copy-1"]);
    expect(newSiblings([".engram"], [".engram"], SOURCE)).toEqual([]);
  });
});

describe("the interrupted report", () => {
  const files = { marker: "/p/config/engram-migration.json", provenance: "/p/config/engram-provenance.json" };

  it("prints exactly what the marker records, then the spec's rollback steps in order", () => {
    const raw = markerText({
      source: SOURCE,
      output: good.directory,
      backup: good.backup_dir,
      instance_id: ID,
      originalProvenance: '{"core":{"sha256":"ab"}}\n',
      started: "t",
    });
    const lines = interruptedReport(files.marker, raw, files.provenance);
    const text = lines.join("\n");
    for (const v of [SOURCE, good.directory, good.backup_dir, ID, JSON.stringify('{"core":{"sha256":"ab"}}\n')]) expect(text).toContain(v);
    const order = [
      "Keep every Engram client and server stopped",
      "Verify the paths",
      "quarantine name",
      "do not replace",
      "Restore originalProvenance",
      "remove /p/config/engram-migration.json",
      "ask for recovery assistance",
    ];
    const at = order.map((s) => text.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it("a marker it cannot read is shown raw, with no steps to guess from", () => {
    const lines = interruptedReport(files.marker, "{half a recor", files.provenance);
    expect(lines).toContain("{half a recor");
    expect(lines.join("\n")).not.toContain("quarantine");
    expect(lines.at(-1)).toMatch(/ask for recovery assistance rather than guessing/);
  });
});
