/**
 * doctor's runtime lines (issue 41) over runtime folders built by hand, each
 * with its file record (src/install/runtime/file-record.ts): as published,
 * ok with how many files were checked; a file changed, broken with `--fix`'s
 * repair (Engram, not required: a warning); a damaged record, broken; no
 * record (published before records existed), ok with presence only. The
 * real installs are test/e2e/doctor-runtimes.test.ts's.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { beforeEach, describe, expect, it } from "vitest";
import { prefixLayout, type Layout } from "../../../src/core/layout";
import { runtimeChecks } from "../../../src/commands/doctor/runtimes";
import type { StatusReport } from "../../../src/commands/status/gather";
import { npmCliOf } from "../../../src/installed/pi-settings";
import { writeFileRecord } from "../../../src/install/runtime/file-record";
import { RUNTIME_FILES, RUNTIME_MARKER } from "../../../src/install/runtime/marker";
import { productionPins } from "../../../src/pins/production";
import { scratchDir } from "../../support/scratch";

let layout: Layout;
const v = { node: productionPins.node.version, pnpm: productionPins.pnpm.version, engram: productionPins.engram.version };

beforeEach(async () => {
  layout = prefixLayout({ home: join(scratchDir("gss-doctor-files-"), "home"), platform: "linux", pins: productionPins });
  for (const file of [layout.node, npmCliOf(layout), layout.pnpmEntry, layout.engram]) {
    await fs.mkdir(join(file, ".."), { recursive: true });
    await fs.writeFile(file, `the bytes of ${file.slice(layout.runtime.length)}\n`);
  }
  for (const dir of [layout.nodeDir, layout.pnpmDir, layout.engramDir]) {
    await fs.writeFile(join(dir, RUNTIME_MARKER), "ours\n");
    await writeFileRecord(dir);
  }
});

function status(): StatusReport {
  const runtime = (name: string, version: string, required: boolean) => ({ name, version, folder: `runtime/${name}-${version}`, state: "marked", required });
  return { runtimes: [runtime("node", v.node, true), runtime("pnpm", v.pnpm, true), runtime("engram", v.engram, false)] } as unknown as StatusReport;
}

async function lines(): Promise<string[]> {
  const checks = await runtimeChecks(layout, status(), "gentle-shell doctor --fix", "run the installer again");
  return checks.map((c) => `${c.status} ${c.line}${c.action ? ` [${JSON.stringify(c.action)}]` : ""}`);
}

describe.skipIf(process.platform === "win32")("doctor's runtime lines against each runtime's file record", () => {
  it("as published: ok, with the number of files checked", async () => {
    expect(await lines()).toEqual([
      `ok node ${v.node} (runtime/node-${v.node}), 2 files as extracted from its pinned archive`,
      `ok pnpm ${v.pnpm} (runtime/pnpm-${v.pnpm}), 1 file as extracted from its pinned archive`,
      `ok engram ${v.engram} (runtime/engram-${v.engram}), 1 file as extracted from its pinned archive`,
    ]);
  });

  it("a file changed or resized: broken for a required runtime, a warning for Engram, each with --fix moving the folder aside", async () => {
    await fs.writeFile(layout.node, `the bytes of /node-${v.node}/bin/nodf\n`);
    await fs.appendFile(layout.engram, "more\n");
    await fs.writeFile(join(layout.pnpmDir, "added-by-user.txt"), "not breakage\n");
    expect(await lines()).toEqual([
      `broken node ${v.node} differs from its pinned archive: bin/node has other bytes (runtime/node-${v.node}) [{"do":"runtime","name":"node","aside":true}]`,
      `ok pnpm ${v.pnpm} (runtime/pnpm-${v.pnpm}), 1 file as extracted from its pinned archive`,
      `warn engram ${v.engram} differs from its pinned archive: engram changed size (runtime/engram-${v.engram}) [{"do":"runtime","name":"engram","aside":true}]`,
    ]);
  });

  it("a damaged record: broken, repaired like a changed file; no record: ok, its files checked for presence only, nothing to repair", async () => {
    await fs.writeFile(join(layout.nodeDir, RUNTIME_FILES), "{ not json");
    await fs.rm(join(layout.pnpmDir, RUNTIME_FILES));
    const [node, pnpm] = await lines();
    expect(node).toBe(
      `broken node ${v.node} has an unreadable file record, so its files cannot be checked (runtime/node-${v.node}) [{"do":"runtime","name":"node","aside":true}]`,
    );
    expect(pnpm).toBe(`ok pnpm ${v.pnpm} (runtime/pnpm-${v.pnpm}), files checked for presence only: it was installed before gentle-shell-setup recorded them`);
  });

  it("a file the install runs gone is named as before, ahead of the record", async () => {
    await fs.rm(layout.pnpmEntry);
    expect((await lines())[1]).toMatch(/^broken pnpm \S+ is incomplete: ~\/\.gentle-shell\/runtime\/pnpm-\S+\/package\/bin\/pnpm\.mjs is gone /);
  });
});
