/**
 * Every update-policy JSON the docs show (issue 47, items 2 and 5): each
 * fenced json block and each inline `{ … }` span in docs/ that names
 * "updates", "minimumReleaseAge" or "enforce" is written to a file, read with
 * the installer's own reader (readPolicySource) and merged as the machine-wide
 * file and as config.json (mergePolicy): none may have a problem. A docs
 * example with a bare-number age, or a key the policy does not know, fails.
 */
import { mkdtempSync, promises as fs, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergePolicy } from "../../src/core/update-policy";
import { readPolicySource } from "../../src/install/update-policy-file";

const DOCS = join(__dirname, "..", "..", "docs");
const POLICY_WORD = /"(updates|minimumReleaseAge|enforce|allowExactVersions)"\s*:/;

function examples(): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const name of readdirSync(DOCS).filter((n) => n.endsWith(".md"))) {
    // A CRLF checkout (windows-latest) reads as LF.
    const text = readFileSync(join(DOCS, name), "utf8").replace(/\r\n/g, "\n");
    for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) if (POLICY_WORD.test(m[1]!)) found.push([name, m[1]!]);
    for (const m of text.matchAll(/`(\{[^`\n]*\})`/g)) if (POLICY_WORD.test(m[1]!)) found.push([name, m[1]!]);
  }
  return found;
}

describe("the update-policy JSON the docs show", () => {
  const all = examples();

  it("is there to check: the fleet and upgrade pages show the locked file, the defaults tier and config.json", () => {
    expect(all.map(([name]) => name)).toEqual(expect.arrayContaining(["fleets-and-ci.md", "upgrade.md"]));
    expect(all.some(([, text]) => text.includes('"enforce": false'))).toBe(true);
    expect(all.some(([, text]) => /"minimumReleaseAge": "\d+[mhd]"/.test(text))).toBe(true);
  });

  it.each(all)("in %s, %s, is read by the real parser with no problem", async (_name, text) => {
    const dir = mkdtempSync(join(tmpdir(), "gss-docs-policy-"));
    const path = join(dir, "policy.json");
    await fs.writeFile(path, text);
    const source = await readPolicySource(path);
    expect(source.kind).toBe("read");
    const asMachine = mergePolicy({ machine: { path, source }, env: undefined, config: { path: "config.json", source: { kind: "absent" } } });
    expect(asMachine.problem).toBeNull();
    if (!text.includes('"enforce"') && !text.includes('"allowExactVersions"')) {
      const asConfig = mergePolicy({ machine: { path, source: { kind: "absent" } }, env: undefined, config: { path, source } });
      expect(asConfig.problem).toBeNull();
    }
  });
});
