#!/usr/bin/env node
/**
 * Turns a copied tree into what a CRLF checkout gives (Git's core.autocrlf=true
 * on Windows, actions/checkout on windows-latest without .gitattributes):
 * every text file's line endings become CRLF. A file is text when its first
 * 8,000 bytes hold no NUL byte, Git's own test. node_modules and .git are left
 * as they are, and so is .ci: its scripts are what runs the replay (bash reads
 * a CR as part of each line), not what the replay is about.
 *
 *   node test/runners/crlf.mjs <folder>    # prints how many files it changed
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2];
if (!root) {
  console.error("usage: node test/runners/crlf.mjs <folder>");
  process.exit(2);
}

let changed = 0;
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === ".git" || entry.name === ".ci") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.isFile()) {
      const bytes = readFileSync(path);
      if (bytes.subarray(0, 8000).includes(0)) continue;
      const text = bytes.toString("latin1");
      const crlf = text.replace(/\r?\n/g, "\r\n");
      if (crlf !== text) {
        writeFileSync(path, crlf, "latin1");
        changed += 1;
      }
    }
  }
};
walk(root);
console.log(changed);
