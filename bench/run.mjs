// Runs every benchmark in this folder, one after another (each prints its own figures and its
// ratio against a baseline measured in the same run). `npm run bench`; or name some:
// `node bench/run.mjs daemon mcp`. With --expose-gc, so RSS figures follow a collection.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const all = readdirSync(dir).filter((f) => f.endsWith(".mjs") && f !== "run.mjs").map((f) => f.slice(0, -4)).sort();
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all;
let failed = 0;
for (const name of wanted) {
  if (!all.includes(name)) {
    console.error(`bench: no bench/${name}.mjs (have: ${all.join(", ")})`);
    process.exit(2);
  }
  console.log(`\n== bench/${name}.mjs`);
  const r = spawnSync(process.execPath, ["--expose-gc", `${dir}${name}.mjs`], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
