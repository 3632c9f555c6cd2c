import { defineConfig } from "tsup";
// One plugin for the four backends' configs (scripts/from-core.mjs).
import { fromCore } from "../../scripts/from-core.mjs";
// The bundled ACP SDK builds its zod schemas on first use, not at load (scripts/acp-lazy-schemas.mjs).
import { acpLazySchemas } from "../../scripts/acp-lazy-schemas.mjs";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  external: [/^@culture\//, /^@modelcontextprotocol\//],
  // The ACP SDK is bundled: its package is 9 MB (every protocol version, transports, schema
  // sources) of which the stable client builders are a small part, and `culture` (which
  // depends on this backend) must stay light for `npx culture`. zod is core's (below).
  noExternal: ["@agentclientprotocol/sdk", /^zod(\/|$)/, "execa"],
  // zod and execa are taken from @culture/core/zod and @culture/core/execa, where core bundles
  // them, so a daemon loads one copy of each (as packages, they cost a daemon 13 MiB of RSS and
  // ~70 ms of CPU; issue 30).
  esbuildPlugins: [fromCore, acpLazySchemas],
});
