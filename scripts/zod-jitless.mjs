/**
 * The esbuild plugin that makes core's bundled zod start with `jitless: true` (issue 30).
 *
 * zod 4 compiles a parser for every object schema the first time it parses with it (source
 * text built at run time, then `new Function`): a speed-up for a schema that parses thousands
 * of times, pure cost for culture's, which parse a config once at start and a few agent
 * messages after. A daemon compiled ~150 of them starting (the config's, the backend's), held
 * ~160 KiB of their source and code for as long as it ran, and spent ~4 ms more CPU in
 * `loadConfig` (11.7 -> 15.4 ms). With `jitless`, zod parses with the schemas as it does
 * whenever it cannot compile (e.g. under a CSP): the same results, no compiled parsers.
 *
 * zod keeps its settings on `globalThis.__zod_globalConfig`, which the first zod copy in a
 * process creates and every other copy shares; this makes core's copy create it with
 * `jitless: true`. A process whose first zod is another copy (`culture mcp` loads the MCP
 * SDK's zod package) keeps zod's default. The build fails if zod's source moves.
 */
import { readFile } from "node:fs/promises";

const CREATE = "(_a.__zod_globalConfig = {})";

export const zodJitless = {
  name: "zod-jitless",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (source.split(CREATE).length !== 2) {
        return { errors: [{ text: `scripts/zod-jitless.mjs: ${args.path} no longer creates its settings as ${CREATE}; update the plugin for this zod version` }] };
      }
      return { contents: source.replace(CREATE, "(_a.__zod_globalConfig = { jitless: true })"), loader: "js" };
    });
  },
};
