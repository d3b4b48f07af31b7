/** .zip extraction (Windows archives) under the same member policy as tar. */
import type { MemberPolicy, ExtractResult } from "./archive";

export async function extractZip(_file: string, _dest: string, policy: MemberPolicy): Promise<ExtractResult> {
  throw new Error(`${policy.name}: .zip archives are not supported by this build yet`);
}
