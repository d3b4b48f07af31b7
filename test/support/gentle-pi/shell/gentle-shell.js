#!/usr/bin/env node
// gentle-pi TEST FIXTURE: the `gentle-shell` a global npm or pnpm install of
// gentle-pi puts on PATH. It only says which one it is, so a test can tell
// the old global gentle-shell from the bundled one.
if (process.argv[2] === "--version") {
  process.stdout.write("gentle-shell __GENTLE_PI_VERSION__ (global fixture)\n");
} else {
  process.stdout.write(`global fixture gentle-shell __GENTLE_PI_VERSION__: ${JSON.stringify(process.argv.slice(2))}\n`);
}
