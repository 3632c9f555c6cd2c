/**
 * The esbuild plugin the built-in backends' tsup configs share: their `zod` imports become
 * imports of `@culture/core/zod`, where core bundles zod, so a daemon loads one copy (as a
 * package, zod's ~100 ES modules cost a daemon 13 MiB of RSS; issue 30). zod must be in the
 * config's `noExternal`, or esbuild never asks the plugin.
 */
export const zodFromCore = {
  name: "zod-from-core",
  setup(build) {
    build.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: "@culture/core/zod", external: true }));
  },
};
