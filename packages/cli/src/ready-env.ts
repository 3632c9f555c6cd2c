/**
 * The environment variable by which `culture start` tells the detached daemon it spawns to
 * report readiness (or the error) over the IPC channel. Its own file so that the `culture start`
 * parent (start-fleet.ts) does not load the daemon's code to learn a name.
 */

/** Set by `culture start` in a detached child: report readiness (or the error) over the IPC channel. */
export const READY_ENV = "CULTURE_DAEMON_READY_CHANNEL";
