// @culture/core/testing: what a backend author needs to test a backend against the host.
// A separate entry point so that production code never loads it.
export * from "./backend-conformance.js";
export * from "./test-runner-context.js";
export * from "./irc-servers.js";
export * from "./test-daemon.js";
export * from "./runner-recorder.js";
export * from "./model-apis/index.js";
export * from "./agent-clis.js";
export * from "./chaos/index.js";
export * from "./permission-tap.js";
export * from "./irc-suite.js";
export * from "./metered-usage.js";
