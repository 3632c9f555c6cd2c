// Config `plugins:`: hooks-only modules resolved from the config's folder, applied to real hooks.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlugins } from "../src/discovery/load-plugins.js";
import { isCultureError, type CultureError } from "../src/errors.js";
import { createDaemonHooks } from "../src/hooks.js";
import { silentLogger } from "../src/logger.js";
import { backendModule, linkZod, removeTempDirs, tempDir, writeFiles, writePackage } from "./fixtures/temp-packages.js";

afterAll(removeTempDirs);

const prefixPlugin = (name: string, prefix: string) => `export default {
  name: ${JSON.stringify(name)},
  apply(hooks) { hooks.beforePrompt.tap(${JSON.stringify(name)}, (p) => p === null ? null : ${JSON.stringify(prefix)} + p); },
};
`;

async function failure(promise: Promise<unknown>): Promise<CultureError> {
  try {
    await promise;
  } catch (err) {
    if (isCultureError(err)) return err;
    throw err;
  }
  throw new Error("expected a CultureError");
}

describe("loadPlugins", () => {
  it("loads packages and paths in order (no name rewriting) and their taps run on the daemon hooks", async () => {
    const dir = tempDir("culture-plugins-");
    const modules = join(dir, "node_modules");
    writePackage(modules, "tag-plugin", { "index.js": prefixPlugin("TagPlugin", "[tag] ") });
    writeFiles(dir, { "plugins/shout.mjs": prefixPlugin("ShoutPlugin", "[shout] ") });
    const plugins = await loadPlugins(["tag-plugin", "./plugins/shout.mjs"], dir);
    expect(plugins.map((p) => p.name)).toEqual(["TagPlugin", "ShoutPlugin"]);
    const hooks = createDaemonHooks();
    for (const plugin of plugins) plugin.apply(hooks, { nick: "spark-x", logger: silentLogger });
    const origin = { id: "1", kind: "dm" as const, channel: null, sender: "alice", replyTo: "alice", text: "hi" };
    expect(await hooks.beforePrompt.promise("hi", origin)).toBe("[shout] [tag] hi");
  });

  it("accepts a backend that has apply() as a plugin", async () => {
    const dir = tempDir("culture-plugins-");
    linkZod(join(dir, "node_modules"));
    writePackage(join(dir, "node_modules"), "culture-backend-tapper", {
      "index.js": backendModule("tapper", "plugin-backend", "").replace("createRunner()", "apply(hooks) { globalThis.__tapperApplied = hooks; },\n  createRunner()"),
    });
    const [plugin] = await loadPlugins(["culture-backend-tapper"], dir);
    const hooks = createDaemonHooks();
    plugin?.apply(hooks, { nick: "n", logger: silentLogger });
    expect((globalThis as { __tapperApplied?: unknown }).__tapperApplied).toBe(hooks);
  });

  it("E_PLUGIN_NOT_FOUND for a missing package or path", async () => {
    const dir = tempDir("culture-plugins-");
    const missing = await failure(loadPlugins(["no-such-plugin"], dir, { configFile: join(dir, "agents.yaml") }));
    expect(missing.code).toBe("E_PLUGIN_NOT_FOUND");
    expect(missing.message).toContain(`culture couldn't find the plugin "no-such-plugin" listed in ${join(dir, "agents.yaml")}`);
    expect(missing.message).toContain(join(dir, "node_modules", "no-such-plugin"));
    expect(missing.message).toContain("npm install no-such-plugin");
    const path = await failure(loadPlugins(["./nowhere.js"], dir));
    expect(path.code).toBe("E_PLUGIN_NOT_FOUND");
    expect(path.message).toContain(join(dir, "nowhere.js"));
  });

  it("E_PLUGIN_LOAD_FAILED with the real error when it throws on import", async () => {
    const dir = tempDir("culture-plugins-");
    writeFiles(dir, { "bad.mjs": `throw new Error("plugin exploded");\n` });
    const err = await failure(loadPlugins(["./bad.mjs"], dir));
    expect(err.code).toBe("E_PLUGIN_LOAD_FAILED");
    expect(err.message).toContain("plugin exploded");
  });

  it("E_PLUGIN_LOAD_FAILED when the default export is not a plugin", async () => {
    const dir = tempDir("culture-plugins-");
    linkZod(join(dir, "node_modules"));
    writeFiles(dir, {
      "none.mjs": "export const x = 1;\n",
      "noapply.mjs": `export default { name: "x" };\n`,
      "backend.mjs": backendModule("plain", "plugin-plain-backend"),
    });
    const none = await failure(loadPlugins(["./none.mjs"], dir));
    expect(none.code).toBe("E_PLUGIN_LOAD_FAILED");
    expect(none.message).toContain("has no default export");
    const noApply = await failure(loadPlugins(["./noapply.mjs"], dir));
    expect(noApply.message).toContain("has no apply(hooks) function");
    const backend = await failure(loadPlugins(["./backend.mjs"], dir));
    expect(backend.message).toContain("is a backend without apply(hooks)");
  });
});
