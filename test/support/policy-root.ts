/**
 * A machine-wide update policy for a test build: a folder holding
 * etc/gentle-shell/policy.json with the given text, the file 0644 and its
 * folders 0755 (as an administrator leaves them), to pass as
 * GSS_TEST_POLICY_ROOT (src/installed/update-gate.ts; a release build ignores it).
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { scratchDir } from "./scratch";

export async function policyRoot(text: string): Promise<{ root: string; file: string }> {
  const root = scratchDir("gss-policy-root-");
  const file = join(root, "etc", "gentle-shell", "policy.json");
  await fs.mkdir(join(root, "etc", "gentle-shell"), { recursive: true });
  await fs.writeFile(file, text, { mode: 0o644 });
  for (const dir of [root, join(root, "etc"), join(root, "etc", "gentle-shell")]) await fs.chmod(dir, 0o755);
  return { root, file };
}
