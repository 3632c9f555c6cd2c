// Scripted model APIs for running the real agent CLIs offline.
export * from "./model-request.js";
export * from "./dialect.js";
export * from "./shell-tools.js";
export * from "./scripted-model-api.js";
export * from "./dialects.js";
export * from "./openai-responses.js";
export * from "./irc-script.js";
export * from "./sse.js";
export * from "./anthropic-messages.js";
export * from "./sandbox-probe.js";
