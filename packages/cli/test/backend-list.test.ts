// Runs the built `culture` binary (build first: `npm run build`) against throw-away backend
// packages written into temp dirs: a project, and a global prefix (CULTURE_GLOBAL_MODULES).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const ZOD = fileURLToPath(new URL("../../../node_modules/zod", import.meta.url));

function culture(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete full.CULTURE_CONFIG;
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, env: full }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function backendPackage(modules: string, name: string, short: string, body?: string): void {
  write(join(modules, name, "package.json"), JSON.stringify({ name, version: "1.0.0", type: "module", exports: "./index.js" }));
  write(
    join(modules, name, "index.js"),
    body ??
      `import { z } from "zod";\nexport default { name: "${short}", apiVersion: 1, configSchema: z.object({}).strict(), createRunner() {} };\n`,
  );
}

let root: string;
let project: string;
let global: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "culture-cli-backends-")));
  project = join(root, "project");
  global = join(root, "global", "node_modules");
  for (const modules of [join(project, "node_modules"), global]) {
    mkdirSync(modules, { recursive: true });
    symlinkSync(ZOD, join(modules, "zod"), "dir");
  }
  backendPackage(join(project, "node_modules"), "culture-backend-alpha", "alpha");
  backendPackage(join(project, "node_modules"), "culture-backend-broken", "broken", `throw new Error("broken on purpose");\n`);
  backendPackage(global, "culture-backend-gamma", "gamma");
  write(join(project, "agents.yaml"), "agents: []\n");
  mkdirSync(join(project, "sub", "dir"), { recursive: true });
  env = { CULTURE_GLOBAL_MODULES: global, CULTURE_HOME: join(root, "home") };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("culture backend list", () => {
  it("--json lists the project's and the global backends, with the loader's error for a broken one", async () => {
    const run = await culture(["backend", "list", "--json"], project, env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout) as { package: string; name: string; source: string; error: string | null; apiVersion: number | null }[];
    const byPackage = Object.fromEntries(list.map((l) => [l.package, l]));
    expect(byPackage["culture-backend-alpha"]).toMatchObject({ name: "alpha", source: "project", apiVersion: 1, error: null });
    expect(byPackage["culture-backend-gamma"]).toMatchObject({ name: "gamma", source: "global", error: null });
    expect(byPackage["culture-backend-broken"]?.error).toContain("broken on purpose");
    expect(byPackage["culture-backend-broken"]?.error).toContain("failed to load");
  });

  it("prints a table, a broken backend's error indented under its row", async () => {
    const run = await culture(["backend", "list"], project, env);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+AGENT\s+SOURCE\s+VERSION\s+API\s+PACKAGE\s+PATH$/);
    expect(lines.find((l) => l.startsWith("alpha "))).toMatch(/^alpha\s+alpha\s+project\s+1\.0\.0\s+1\s+culture-backend-alpha\s+\//);
    const broken = lines.findIndex((l) => l.startsWith("broken (broken)"));
    expect(broken).toBeGreaterThan(0);
    expect(lines[broken + 1]).toMatch(/^ {4}culture found the backend/);
    expect(run.stdout).toContain("    Error: broken on purpose");
  });

  it("resolves from the config's folder: found by the search from a sub-folder, or given with --config", async () => {
    const fromSub = await culture(["backend", "list", "--json"], join(project, "sub", "dir"), env);
    expect(JSON.parse(fromSub.stdout).map((l: { package: string }) => l.package)).toContain("culture-backend-alpha");
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const withConfig = await culture(["--config", join(project, "agents.yaml"), "backend", "list", "--json"], elsewhere, env);
    expect(JSON.parse(withConfig.stdout).map((l: { package: string }) => l.package)).toContain("culture-backend-alpha");
    const without = await culture(["backend", "list", "--json"], elsewhere, env);
    expect(JSON.parse(without.stdout).map((l: { package: string }) => l.package)).not.toContain("culture-backend-alpha");
  });
});
