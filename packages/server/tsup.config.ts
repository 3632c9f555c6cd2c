import { defineConfig } from "tsup";

export default defineConfig({
  // channel-registry: `culture start` writes the channels' owners before it spawns the daemons,
  // without loading the server itself (issue 30).
  entry: { index: "src/index.ts", main: "src/main.ts", "account-store": "src/account-store.ts", "channel-registry": "src/channel-registry.ts" },
  format: ["esm"],
  dts: { entry: { index: "src/index.ts", "account-store": "src/account-store.ts", "channel-registry": "src/channel-registry.ts" } },
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  splitting: true,
});
