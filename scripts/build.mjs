#!/usr/bin/env node
// Builds the workspaces in dependency order (core first: the others consume its dist/ types).
// `--typecheck` runs tsc --noEmit in the same order instead.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const first = ["core", "server"];
const rest = readdirSync("packages").filter((d) => !first.includes(d)).sort();
const order = [...first, ...rest].filter((d) => existsSync(`packages/${d}/package.json`));
const script = process.argv.includes("--typecheck") ? "typecheck" : "build";
for (const dir of order) {
  execFileSync("npm", ["run", script, "--if-present", "-w", `packages/${dir}`], { stdio: "inherit" });
}
