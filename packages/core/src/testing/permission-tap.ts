/**
 * A `permissionRequest` tap for backend tests: it records every permission request the agent
 * makes and answers it with the test's `decide` (undefined leaves it to the daemon's policy,
 * and so to an operator on IRC when the mode is ask). The backends' real-CLI approval suites
 * use it to drive allow, deny and withdrawal without an operator.
 */
import type { PermissionDecision, PermissionRequest } from "../approvals/permission-request.js";
import type { DaemonHooks } from "../hooks.js";

/** A test's answer to one request; undefined: the daemon's policy answers. */
export type DecidePermission = (request: PermissionRequest) => Promise<PermissionDecision | undefined> | PermissionDecision | undefined;

/** Taps `hooks.permissionRequest` with `decide`; returns the list it records every request in, oldest first. */
export function tapPermissionRequests(hooks: DaemonHooks, decide: DecidePermission): PermissionRequest[] {
  const asked: PermissionRequest[] = [];
  hooks.permissionRequest.tapPromise("permission-tap", async (request) => {
    asked.push(request);
    return (await decide(request)) ?? undefined;
  });
  return asked;
}
