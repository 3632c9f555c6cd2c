#!/usr/bin/env node
// Builds the workspaces in dependency order (server, then core: the others consume their dist/ types).
// `--typecheck` runs tsc --noEmit in the same order instead.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const first = ["server", "core"]; // core uses @culture/server/accounts (the account store)
const rest = readdirSync("packages").filter((d) => !first.includes(d)).sort();
const order = [...first, ...rest].filter((d) => existsSync(`packages/${d}/package.json`));
const script = process.argv.includes("--typecheck") ? "typecheck" : "build";
for (const dir of order) {
  execFileSync("npm", ["run", script, "--if-present", "-w", `packages/${dir}`], { stdio: "inherit" });
}
