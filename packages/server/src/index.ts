/**
 * @culture/server: culture's embedded single-node IRC server. `startServer()` runs it in
 * this process; the `culture-ircd` binary (and `culture server start`) runs it in its own.
 */
export { startServer, type IrcServer } from "./irc-server.js";
export { defaultStateDir, LIMITS, SERVER_VERSION, type FloodOptions, type ServerLogger, type ServerOptions } from "./server-options.js";
export { ServerError, type ServerErrorCode } from "./errors.js";
export { parseMessage, formatParams, formatTags, type IrcMessage } from "./message.js";
export { ircLower } from "./casemapping.js";
export { AccountStore, accountStorePath, generatePassword, type AccountInfo, type AccountKind } from "./account-store.js";
export { ChannelRegistry, channelRegistryPath, updateChannelRegistry, type ChannelRegistryFile } from "./channel-registry.js";
