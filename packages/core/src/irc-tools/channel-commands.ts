/**
 * The lean entry `culture channel` bundles (`@culture/core/channel-commands`): the catalogue of
 * the agent's IRC commands with their CLI forms and formatting. No zod and no daemon code is
 * loaded from here (the command files import those as types only), so the agent's hottest
 * path stays one small file.
 */
export { IRC_COMMANDS, ircCommand, ircCommandByIpcType } from "../irc-commands/catalogue.js";
export type { IrcCommand, IrcCommandArg, IrcCommandOption } from "../irc-commands/define.js";
export { ChannelUsageError, commandHelp, fieldsFromWords, positiveInt, textFrom, usageOf } from "../irc-commands/cli-form.js";
export { clock, formatMessage } from "../irc-commands/format.js";
