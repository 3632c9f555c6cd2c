import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", main: "src/main.ts", "account-store": "src/account-store.ts" },
  format: ["esm"],
  dts: { entry: { index: "src/index.ts", "account-store": "src/account-store.ts" } },
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  splitting: true,
});
