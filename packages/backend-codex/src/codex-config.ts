/**
 * Reads the few keys of Codex's `config.toml` that `culture doctor` needs to know how Codex
 * authenticates: `model_provider`, and that provider's `env_key` / `requires_openai_auth`.
 * A line-based reader (top-level keys, `[model_providers.<id>]` tables and dotted keys, basic
 * strings and booleans), not a TOML parser: a value it cannot read counts as absent.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { codexHomeOf } from "./channel-access.js";

/** How the configured model provider authenticates. */
export interface CodexProviderAuth {
  /** The config file read (it may not exist). */
  file: string;
  /** `model_provider` (default `openai`). */
  provider: string;
  /** The provider's `env_key`: the variable its API key is read from. */
  envKey?: string;
  /** True when the provider signs in with OpenAI (`codex login`): `openai`, or `requires_openai_auth = true`. */
  openaiAuth: boolean;
}

/** Codex's built-in providers that need no sign-in. */
const LOCAL_PROVIDERS = new Set(["ollama", "lmstudio", "oss"]);

/** Reads how the model provider of the Codex home in `env` authenticates. */
export function readProviderAuth(env: Record<string, string | undefined>): CodexProviderAuth {
  const file = join(codexHomeOf(env), "config.toml");
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = "";
  }
  const values = flatten(text);
  const provider = values.get("model_provider") ?? "openai";
  const envKey = values.get(`model_providers.${provider}.env_key`);
  const requires = values.get(`model_providers.${provider}.requires_openai_auth`);
  const openaiAuth = (provider === "openai" || requires === "true") && !LOCAL_PROVIDERS.has(provider);
  return { file, provider, ...(envKey ? { envKey } : {}), openaiAuth };
}

/** `table.key` -> raw value (strings unquoted, booleans as "true"/"false"). */
function flatten(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let table = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, "");
    if (!line || line.startsWith("#")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]\s*(?:#.*)?$/.exec(line);
    if (header) {
      table = header[1]!.split(".").map(unquote).join(".");
      continue;
    }
    const kv = /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.split(/\s*\.\s*/).map(unquote).join(".");
    const value = readValue(kv[2]!);
    if (value !== undefined) out.set(table ? `${table}.${key}` : key, value);
  }
  return out;
}

function unquote(s: string): string {
  const t = s.trim();
  return (t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")) ? t.slice(1, -1) : t;
}

function readValue(raw: string): string | undefined {
  const v = raw.trim();
  const str = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(v);
  if (str) return str[1] !== undefined ? str[1].replace(/\\(.)/g, "$1") : str[2];
  const bool = /^(true|false)\b/.exec(v);
  return bool ? bool[1] : undefined;
}
