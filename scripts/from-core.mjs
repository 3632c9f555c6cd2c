/**
 * The esbuild plugin the built-in backends' tsup configs share: their `zod` and `execa` imports
 * become imports of `@culture/core/zod` and `@culture/core/execa`, where core bundles them, so a
 * daemon loads one copy of each (as packages, zod's ~100 ES modules cost a daemon 13 MiB of RSS
 * and execa's ~135 about 70 ms of CPU and 6 MiB; issue 30). Both must be in the config's
 * `noExternal`, or esbuild never asks the plugin.
 */
export const fromCore = {
  name: "from-core",
  setup(build) {
    build.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: "@culture/core/zod", external: true }));
    build.onResolve({ filter: /^execa$/ }, () => ({ path: "@culture/core/execa", external: true }));
  },
};
