/**
 * `culture doctor`'s sandbox checks (sandbox-doctor.ts), loaded when doctor runs: the sandbox's
 * code is outside what every daemon loads (daemon/lazy-modules.ts, issue 30).
 */
import type { DoctorCheck } from "../backend.js";
import type { sandboxChecks as checks } from "./sandbox-doctor.js";

/** The sandbox checks of the config's agents (bwrap or podman present and working, paths allowed). */
export async function sandboxChecks(...args: Parameters<typeof checks>): Promise<DoctorCheck[]> {
  return (await import("../daemon/lazy-modules.js")).sandboxChecks(...args);
}
