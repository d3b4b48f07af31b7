// Test extension (copied into a test's agent home): when GSS_ARGV_RECORD names a file, writes there
// the argument vector of the Pi process that loaded it (process.argv, exactly what Pi's own argument
// parser reads) and the session directory variable it sees.
import { writeFileSync } from "node:fs";

export default function gssArgv() {
  const file = process.env.GSS_ARGV_RECORD;
  if (!file) return;
  const record = { pid: process.pid, argv: process.argv, sessionDirVariable: process.env.PI_CODING_AGENT_SESSION_DIR ?? null };
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}
