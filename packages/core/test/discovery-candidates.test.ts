import { describe, expect, it } from "vitest";
import { backendCandidates, isPathSpecifier, shortBackendName } from "../src/discovery/candidates.js";

describe("backendCandidates", () => {
  const table: [string, string[]][] = [
    ["foo", ["@culture/backend-foo", "culture-backend-foo"]],
    ["claude", ["@culture/backend-claude", "culture-backend-claude"]],
    ["my-agent", ["@culture/backend-my-agent", "culture-backend-my-agent"]],
    ["@acme/foo", ["@acme/culture-backend-foo"]],
    ["@acme/culture-backend-foo", ["@acme/culture-backend-foo"]],
    ["culture-backend-foo", ["culture-backend-foo"]],
    ["@culture/backend-foo", ["@culture/backend-foo"]],
    ["@culture/foo", ["@culture/backend-foo"]],
    ["./backends/foo", ["./backends/foo"]],
    ["../foo", ["../foo"]],
    [".", ["."]],
    ["/opt/backends/foo", ["/opt/backends/foo"]],
  ];
  it.each(table)("%s -> %j", (agent, expected) => {
    expect(backendCandidates(agent)).toEqual(expected);
  });
});

describe("isPathSpecifier / shortBackendName", () => {
  it("tells paths from package names", () => {
    expect(["./x", "../x", "/x", ".", ".."].map(isPathSpecifier)).toEqual([true, true, true, true, true]);
    expect(["x", "@s/x", ".x", "culture-backend-x"].map(isPathSpecifier)).toEqual([false, false, false, false]);
  });

  it("maps package names back to short backend names", () => {
    expect(shortBackendName("@culture/backend-claude")).toBe("claude");
    expect(shortBackendName("culture-backend-foo")).toBe("foo");
    expect(shortBackendName("@acme/culture-backend-foo")).toBe("foo");
    expect(shortBackendName("@culture/core")).toBeNull();
    expect(shortBackendName("left-pad")).toBeNull();
    expect(shortBackendName("culture-backend-")).toBeNull();
  });
});
