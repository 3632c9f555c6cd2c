#!/usr/bin/env node
// Builds the workspaces in dependency order (server, then core: the others consume their dist/ types).
// `--typecheck` runs tsc --noEmit in the same order instead.
// Each package's dist/ is emptied first: tsup keeps old chunks (clean: false, so that a
// package rebuilt by hand while tests run keeps working), and stale chunks would be published.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";

const first = ["server", "core"]; // core uses @culture/server/accounts (the account store)
const rest = readdirSync("packages").filter((d) => !first.includes(d)).sort();
const order = [...first, ...rest].filter((d) => existsSync(`packages/${d}/package.json`));
const script = process.argv.includes("--typecheck") ? "typecheck" : "build";
for (const dir of order) {
  if (script === "build") rmSync(`packages/${dir}/dist`, { recursive: true, force: true });
  execFileSync("npm", ["run", script, "--if-present", "-w", `packages/${dir}`], { stdio: "inherit" });
}
