/** What doctor's checks read with (issue 41): the install's layout and pins, the environment, and status's probes. */
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import type { Pins, Target } from "../../pins/types";
import type { HttpClient } from "../../io/http-client";
import type { StatusProbes } from "../status/gather";
import type { DoctorProgram } from "../../core/repair-command";

export interface DoctorContext {
  layout: Layout;
  pins: Pins;
  env: Env;
  probes: StatusProbes;
  /** How the user runs this program's commands: "gentle-shell" or "gentle-shell-setup". */
  program: DoctorProgram;
  /** The Host's HTTP client: the source check and --fix's downloads. */
  http: HttpClient;
  /** The Host's target: the runtimes --fix downloads again are this machine's. */
  target: Target;
}
