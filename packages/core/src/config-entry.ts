/**
 * `@culture/core/config`: the part of core that `culture start` needs before it spawns its
 * daemons — loading and checking agents.yaml, the paths, PID files and log files of agents, the
 * coded errors — without the daemon, IRC, approvals or sandbox code the barrel also evaluates
 * (issue 30: importing the barrel was ~230 ms of the parent's ~370 ms of CPU). Everything here
 * is also exported by `@culture/core`, from the same modules: tsup's shared chunks make them one
 * copy in a process that loads both (so `instanceof CultureError` holds across them).
 */
export { loadConfig, type LoadConfigOptions } from "./config/load-config.js";
export type { AgentConfig, CultureConfig, ServerConfig } from "./config/schema.js";
export { agentLogPath, agentPidPath, controlSocketPath, controlTokenPath } from "./paths.js";
export { openPrivateAppend } from "./private-files.js";
export { isOurProcess, isProcessAlive, readPidFile, removeFile } from "./process/pid-file.js";
export { agentNotFound, controlFromAgent, errorMessage, isCultureError, usageError, CultureError } from "./errors.js";
export { describeRefusal, type ChannelRefusal } from "./daemon/join-refusals.js";
export { readControlToken } from "./ipc/control-token.js";
export { LOCAL_HOSTS } from "./identity/local-hosts.js";
