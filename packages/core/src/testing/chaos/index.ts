/** The chaos-suite harness: a stalling/dropping TCP proxy, killable servers, a prompt recorder. */
export * from "./tcp-proxy.js";
export * from "./chaos-servers.js";
export * from "./prompt-recorder.js";
