/**
 * The resolved config written back as YAML (`culture config check`). Agent entries are
 * flattened again (backend fields beside the common ones), so the output is itself a valid
 * agents.yaml: what you see is exactly what the daemon runs with.
 */
import { stringify } from "yaml";
import type { CultureConfig } from "./schema.js";

/** What replaces a secret in the output. */
export const REDACTED = "<redacted>";

/**
 * The config as YAML, defaults filled in, `filepath` left out. Unless `redact` is false,
 * `server.password`, `server.sasl.password`, `webhooks.secret`, each agent's `trigger.secret` and any password in
 * `webhooks.url` are replaced with {@link REDACTED} (they are often `${ENV}` secrets), and so
 * is every backend field (at any depth, `env:` entries included) whose name ends in `key`,
 * `token`, `secret` or `password` (a BYOK `provider.api_key`, `env: {GH_TOKEN: ...}`).
 */
export function configToYaml(config: CultureConfig, options: { redact?: boolean } = {}): string {
  const redact = options.redact ?? true;
  const hide = <T>(value: T): T | string => (redact && value !== null && value !== undefined ? REDACTED : value);
  // Spreading keeps the schema's key order; the overridden sections stay in place.
  const { filepath: _filepath, ...body } = config;
  const out = {
    ...body,
    server: {
      ...config.server,
      password: hide(config.server.password),
      sasl: config.server.sasl ? { ...config.server.sasl, password: hide(config.server.sasl.password) } : null,
    },
    webhooks: { ...config.webhooks, url: redact ? redactUrl(config.webhooks.url) : config.webhooks.url, secret: hide(config.webhooks.secret) },
    agents: config.agents.map(({ options: backendFields, ...common }) => ({
      ...common,
      // The HTTP trigger's signing secret (docs/schedules.md).
      ...(common.trigger ? { trigger: { ...common.trigger, secret: hide(common.trigger.secret) } } : {}),
      ...(redact ? (redactSecretFields(backendFields) as Record<string, unknown>) : backendFields),
    })),
  };
  return stringify(out, { lineWidth: 0 });
}

const SECRET_FIELD = /(key|token|secret|password)$/i;

/** A copy of `value` with the values of secret-named fields replaced by {@link REDACTED}. */
function redactSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecretFields);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined && typeof v !== "object" ? REDACTED : redactSecretFields(v);
  }
  return out;
}

function redactUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = "redacted"; // "<" and ">" would be percent-encoded
    return parsed.toString();
  } catch {
    return url;
  }
}
