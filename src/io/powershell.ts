/**
 * Windows PowerShell with data through the environment only (spec PATH,
 * "Registry": the registry change goes through an injected adapter, and
 * this is the runner its callers inject). The script travels as
 * -EncodedCommand; paths and values travel as environment variables, never
 * as script text.
 */
import { execFile } from "node:child_process";

export interface PowerShellResult {
  status: number | null;
  stdout: string;
  stderr: string;
}
/** Runs a PowerShell script with extra environment variables. */
export type PowerShellRunner = (script: string, env: Record<string, string>) => Promise<PowerShellResult>;

export const runWindowsPowerShell: PowerShellRunner = (script, env) =>
  new Promise((resolve) => {
    const encoded = Buffer.from(script, "utf16le").toString("base64");
    execFile(
      "powershell.exe",
      ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-EncodedCommand", encoded],
      { env: { ...process.env, ...env }, windowsHide: true, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ status, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
