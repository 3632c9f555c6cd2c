/** The `provider:` field (BYOK): validated, `${ENV}` keys interpolated, mapped onto the SDK's option. */
import { parseConfig } from "@culture/core";
import { describe, expect, it } from "vitest";
import { toProviderConfig } from "../src/byok-provider.js";
import { copilotOptionsSchema } from "../src/copilot-options.js";

const yaml = (provider: string) => `
server: {name: spark}
agents:
  - nick: spark-copilot
    agent: copilot
    directory: /tmp
    model: gpt-4.1
    provider: ${provider}
`;

describe("the provider field", () => {
  it("reads the documented config, ${ENV} key included, and passes it as the SDK's provider", () => {
    const config = parseConfig(yaml(`{type: openai, wire_api: responses, base_url: "http://127.0.0.1:8000/v1", api_key: "\${LOCAL_MODEL_KEY}"}`), "/tmp/agents.yaml", { LOCAL_MODEL_KEY: "sk-local" });
    const options = copilotOptionsSchema.parse(config.agents[0]!.options);
    expect(toProviderConfig(options.provider!)).toEqual({ type: "openai", wireApi: "responses", baseUrl: "http://127.0.0.1:8000/v1", apiKey: "sk-local" });
  });

  it("defaults to an OpenAI-compatible Chat Completions API with no key (a local server)", () => {
    const options = copilotOptionsSchema.parse({ provider: { base_url: "http://127.0.0.1:11434/v1" } });
    expect(toProviderConfig(options.provider!)).toEqual({ type: "openai", wireApi: "completions", baseUrl: "http://127.0.0.1:11434/v1" });
  });

  it("refuses a misspelt field, an unknown wire API and a base_url that is not a URL", () => {
    const issues = (provider: unknown) => copilotOptionsSchema.safeParse({ provider }).error?.issues.map((i) => `${i.path.join(".")}: ${i.code}`);
    expect(issues({ base_url: "http://x/v1", apikey: "k" })).toEqual(["provider: unrecognized_keys"]);
    expect(issues({ base_url: "http://x/v1", wire_api: "chat" })).toEqual(["provider.wire_api: invalid_value"]);
    expect(issues({ base_url: "localhost:11434/v1" })).toEqual(["provider.base_url: custom"]);
    expect(copilotOptionsSchema.safeParse({ provider: { base_url: "localhost:11434/v1" } }).error?.issues[0]?.message).toBe(
      "must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1",
    );
  });

  it("is null (GitHub's Copilot API, signed in) when not set", () => {
    expect(copilotOptionsSchema.parse({}).provider).toBeNull();
  });
});
