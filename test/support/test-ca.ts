/**
 * A throwaway certificate authority and a server certificate it signs for
 * 127.0.0.1 and localhost (or the names given), made with this machine's openssl (.ci/system-tools
 * installs it). Nothing on the machine trusts it unless a test says so.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { scratchDir } from "./scratch";

export interface TestCa {
  /** The CA's certificate (PEM): what a trusting client is given. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
}

export function makeTestCa(name = "gentle-shell-setup test CA", names: readonly string[] = ["IP:127.0.0.1", "DNS:localhost"]): TestCa {
  // Removed when the test file that made it ends (./scratch.ts).
  const dir = scratchDir("gss-ca-");
  const at = (file: string) => join(dir, file);
  const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${name}`, "-keyout", at("ca.key"), "-out", at("ca.pem")]);
  openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("server.key"), "-out", at("server.csr")]);
  writeFileSync(at("ext"), `subjectAltName=${names.join(",")}\nbasicConstraints=CA:FALSE\n`);
  openssl([
    "x509",
    "-req",
    "-in",
    at("server.csr"),
    "-CA",
    at("ca.pem"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    at("ext"),
    "-out",
    at("server.pem"),
  ]);
  return { caFile: at("ca.pem"), key: readFileSync(at("server.key")), cert: readFileSync(at("server.pem")) };
}

/** This machine's own CA settings (its network inspects TLS): a test of trust clears them, or it proves nothing. */
const HOST_TRUST = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"] as const;

/** `env` with none of this machine's CA settings, and only the `trust` the test names. */
export function onlyTrust(env: NodeJS.ProcessEnv, trust: Partial<Record<(typeof HOST_TRUST)[number], string>> = {}): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of HOST_TRUST) delete out[name];
  return { ...out, ...trust };
}
