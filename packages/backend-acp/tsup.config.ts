import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  external: [/^@culture\//, "zod", /^@modelcontextprotocol\//],
  // The ACP SDK is bundled: its package is 9 MB (every protocol version, transports, schema
  // sources) of which the stable client builders are a small part, and `culture` (which
  // depends on this backend) must stay light for `npx culture`. zod stays a peer.
  noExternal: ["@agentclientprotocol/sdk"],
});
