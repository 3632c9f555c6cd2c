/**
 * core's entries that the daemon image (scripts/daemon-image.mjs) bundles and serves to the ES
 * modules of its process through core's facades (scripts/core-facades.mjs): specifier -> built file.
 */
export const IMAGE_ENTRIES = {
  "@culture/core": "dist/index.js",
  "@culture/core/config": "dist/config.js",
  "@culture/core/paths": "dist/paths.js",
  "@culture/core/ipc-client": "dist/ipc/ipc-client.js",
  "@culture/core/irc-tools": "dist/irc-tools/index.js",
  "@culture/core/channel-commands": "dist/irc-tools/channel-commands.js",
  "@culture/core/zod": "dist/zod.js",
  "@culture/core/execa": "dist/execa.js",
};
