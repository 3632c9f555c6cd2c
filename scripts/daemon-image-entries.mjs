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

/**
 * The backends culture installs with itself (the cli's dependencies), bundled into the image
 * whole: package -> its built entry. A daemon whose `agent:` resolves to that very file, byte
 * for byte as the image was built from (bin/daemon-image.cjs checks its SHA-256), runs the
 * image's copy, compiled from the code cache like the rest; any other file (another version, a
 * project's own copy, a build made since) is imported as before.
 */
export const IMAGE_BACKENDS = {
  "@culture/backend-acp": "dist/index.js",
};
