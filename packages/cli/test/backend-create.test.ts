// `culture backend create` without npm: runs the built `culture` binary (build first:
// `npm run build`) and checks what it writes and what it refuses. The registry round trip
// (install, test, publish, discover, run on IRC) is backend-create.registry.test.ts.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BACKEND_API_VERSION, assertBackendDefinition } from "@culture/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const TEMPLATE = fileURLToPath(new URL("../templates/backend", import.meta.url));
const CORE_VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL("../../core/package.json", import.meta.url)), "utf8")) as { version: string })
  .version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function culture(args: string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: `${root}-home` };
  delete env.CULTURE_CONFIG;
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, env }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Files under `dir`, relative and `/`-separated, sorted. */
function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      return e.isDirectory() ? listFiles(dir, rel) : [rel];
    })
    .sort();
}

/** The template's files as they must be written: `_gitignore` becomes `.gitignore`. */
function expectedFiles(): string[] {
  return listFiles(TEMPLATE)
    .filter((f) => !f.startsWith("node_modules/") && !f.startsWith("dist/"))
    .map((f) => f.replace(/(^|\/)_gitignore$/, "$1.gitignore"))
    .sort();
}

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "culture-backend-create-")));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(`${root}-home`, { recursive: true, force: true });
});

describe("culture backend create", () => {
  it("writes the template's files into ./culture-backend-<name>, _gitignore renamed, and prints the next steps", async () => {
    const run = await culture(["backend", "create", "myagent"], root);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const dir = join(root, "culture-backend-myagent");
    const files = listFiles(dir);
    expect(files).toEqual(expectedFiles());
    expect(files).toContain(".gitignore");
    expect(files).not.toContain("_gitignore");
    expect(run.stdout).toContain(`Created culture-backend-myagent in ${dir}`);
    // From a clone of culture, @culture/core is linked from the clone (it may not be on any registry yet).
    expect(run.stdout).toMatch(/Next steps:\n {2}cd culture-backend-myagent\n {2}npm install +# @culture\/core links to your clone of culture \(file:.*\)\n {2}npm test/);
    expect(run.stdout).toContain("agents.yaml:   agent: myagent");

    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe("culture-backend-myagent");
    expect(manifest.keywords).toContain("culture-backend");
    expect(manifest.peerDependencies).toEqual({ "@culture/core": `^${CORE_VERSION}`, zod: "^4.0.0" });
    expect(manifest.devDependencies["@culture/core"]).toBe(`file:${realpathSync(fileURLToPath(new URL("../../core", import.meta.url)))}`);
    expect(readFileSync(join(dir, "src/index.ts"), "utf8")).toContain(`name: "myagent",`);
  });

  it("declares the backend API it was written against as a number, not the host's BACKEND_API_VERSION (which always matches)", async () => {
    const run = await culture(["backend", "create", "myagent"], root);
    expect(run.code).toBe(0);
    const index = readFileSync(join(root, "culture-backend-myagent", "src/index.ts"), "utf8");
    expect(index).toContain(`apiVersion: ${BACKEND_API_VERSION},`);
    expect(index).not.toMatch(/apiVersion: BACKEND_API_VERSION/);
    // So a culture with another API refuses it with the mismatch error (checked before anything else).
    const apiVersion = Number(/apiVersion: (\d+),/.exec(index)![1]);
    expect(() => assertBackendDefinition({ apiVersion: apiVersion + 1 }, "culture-backend-myagent")).toThrow(expect.objectContaining({ code: "E_BACKEND_API_MISMATCH" }));
  });

  it("substitutes a scoped name everywhere: package, backend name, agent value (quoted in YAML)", async () => {
    const run = await culture(["backend", "create", "foo", "--scope", "acme", "--dir", "pkgs/foo"], root);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const dir = join(root, "pkgs", "foo");
    expect(listFiles(dir)).toEqual(expectedFiles());
    const all = listFiles(dir).map((f) => readFileSync(join(dir, f), "utf8"));
    expect(all.filter((text) => text.includes("myagent"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name).toBe("@acme/culture-backend-foo");
    expect(readFileSync(join(dir, "src/index.ts"), "utf8")).toContain(`name: "foo",`);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("# @acme/culture-backend-foo");
    expect(readme).toContain(`    agent: "@acme/foo"\n`);
    expect(readme).toContain("culture skills install @acme/foo");
    expect(run.stdout).toContain(`agents.yaml:   agent: "@acme/foo"`);
    expect(run.stdout).toContain("npm install @acme/culture-backend-foo");
  });

  it("accepts @scope/name and a full culture-backend-<name>", async () => {
    expect((await culture(["backend", "create", "@acme/bar"], root)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "culture-backend-bar", "package.json"), "utf8")).name).toBe("@acme/culture-backend-bar");
    expect((await culture(["backend", "create", "culture-backend-baz"], root)).code).toBe(0);
    expect(readFileSync(join(root, "culture-backend-baz", "src/index.ts"), "utf8")).toContain(`name: "baz",`);
  });

  it.each([
    ["MyAgent", "has upper-case letters"],
    ["my agent", "is not valid"],
    ["_agent", "is not valid"],
    ["my/agent", "is not valid"],
    ["claude", "is a built-in backend (@culture/backend-claude)"],
    ["codex", "is a built-in backend"],
    ["acp", "is a built-in backend"],
    ["copilot", "is a built-in backend"],
  ])("refuses the name %j with a usage error (exit 2): %s", async (name, message) => {
    const run = await culture(["backend", "create", name], root);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(readdirSync(root)).toEqual([]);
  });

  it("allows a built-in's name under a scope (agent: @acme/claude cannot hit the built-in)", async () => {
    const run = await culture(["backend", "create", "claude", "--scope", "@acme"], root);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "culture-backend-claude", "package.json"), "utf8")).name).toBe("@acme/culture-backend-claude");
  });

  it("refuses a bad scope, and a scope given twice differently", async () => {
    const bad = await culture(["backend", "create", "foo", "--scope", "@Acme"], root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not a valid npm scope");
    const twice = await culture(["backend", "create", "@acme/foo", "--scope", "@other"], root);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("Give the scope once");
  });

  it("refuses a non-empty --dir and writes nothing there; an empty one is fine", async () => {
    mkdirSync(join(root, "taken"));
    writeFileSync(join(root, "taken", "notes.txt"), "mine\n");
    const run = await culture(["backend", "create", "myagent", "--dir", "taken"], root);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(root, "taken")} is not empty`);
    expect(readdirSync(join(root, "taken"))).toEqual(["notes.txt"]);

    mkdirSync(join(root, "empty"));
    const ok = await culture(["backend", "create", "myagent", "--dir", "empty"], root);
    expect(ok.code).toBe(0);
    expect(listFiles(join(root, "empty"))).toEqual(expectedFiles());
  });

  it("a missing name is a usage error (exit 2)", async () => {
    const run = await culture(["backend", "create"], root);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'name'");
  });
});
