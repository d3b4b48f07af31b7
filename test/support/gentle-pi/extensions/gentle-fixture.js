// gentle-pi TEST FIXTURE extension: proves that Pi loaded this package, and which version.
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const VERSION = "__GENTLE_PI_VERSION__";

export default function gentlePiFixture(pi) {
  const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, "gentle-pi-fixture.json"),
    JSON.stringify({
      name: "gentle-pi",
      fixture: true,
      version: VERSION,
      pid: process.pid,
      // What the launcher gave Pi, so tests can check the memory and isolation rules.
      env: Object.fromEntries(
        Object.entries(process.env).filter(([k]) => /^(ENGRAM_|GENTLE_|PI_CODING_AGENT_DIR$|PI_SKIP_VERSION_CHECK$|NODE_OPTIONS$)/.test(k)),
      ),
    }) + "\n",
  );
  pi.registerCommand("gentle-fixture", {
    description: "gentle-pi test fixture: report the loaded version",
    handler: async (_args, ctx) => {
      ctx.ui.notify(`gentle-pi fixture ${VERSION}`, "info");
    },
  });
}
