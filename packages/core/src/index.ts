// The public API of @culture/core. The only barrel: everything else imports the file it needs.
// Areas append their exports below in their own block.

export * from "./agent-message.js";
export * from "./agent-runner.js";
export * from "./supervisor-base.js";
export * from "./verdict.js";
export * from "./backend.js";
export * from "./events.js";
export * from "./hooks.js";
export * from "./errors.js";
export * from "./logger.js";
export * from "./config/schema.js";
