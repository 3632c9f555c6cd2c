/**
 * `culture doctor` for Copilot agents: is there a runtime to run, and is it signed in? The
 * sign-in check starts the runtime and asks it (`auth.getStatus`), as the agent would.
 */
import { errorMessage, type DoctorCheck } from "@culture/core";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { COPILOT_LOGIN_METHODS, startError } from "./copilot-errors.js";
import { copilotOptionsSchema, type CopilotOptions } from "./copilot-options.js";
import { findRuntime, type RuntimeLocation } from "./find-runtime.js";
import { runtimeEnv } from "./runtime-env.js";

/** Tunables of {@link copilotDoctor}. */
export interface CopilotDoctorSettings {
  /** How long the sign-in check may take. Default 20000 ms. */
  timeoutMs?: number;
  /** Where relative `executable` paths start. Default the current directory. */
  cwd?: string;
}

/** The doctor checks of one Copilot agent entry: the runtime, then the sign-in. */
export async function copilotDoctor(
  rawOptions: Partial<CopilotOptions> | undefined,
  daemonEnv: Record<string, string | undefined>,
  settings: CopilotDoctorSettings = {},
): Promise<DoctorCheck[]> {
  const options = copilotOptionsSchema.parse(rawOptions ?? {});
  const env = runtimeEnv(daemonEnv, options.env);
  let runtime: RuntimeLocation;
  try {
    runtime = await findRuntime(options, env, settings.cwd ?? process.cwd());
  } catch (err) {
    return [
      {
        ok: false,
        name: "Copilot runtime",
        detail: errorMessage(err).split("\n")[0] ?? "not found",
        fix: "npm install -g @github/copilot, or set executable in agents.yaml (see docs/backends/copilot.md)",
      },
    ];
  }
  const found: DoctorCheck = { ok: true, name: "Copilot runtime", detail: `${runtime.path} (${describeSource(runtime.source)})` };
  if (options.provider) {
    // BYOK: the runtime never signs in to GitHub; the provider's key is checked by the first turn.
    const { type, wire_api: wireApi, base_url: baseUrl } = options.provider;
    return [found, { ok: true, name: "Copilot sign-in", detail: `not needed: the agent uses its own model provider (${type}, ${wireApi}, ${baseUrl})` }];
  }
  return [found, await checkSignIn(runtime, env, settings.timeoutMs ?? 20_000)];
}

async function checkSignIn(runtime: RuntimeLocation, env: Record<string, string>, timeoutMs: number): Promise<DoctorCheck> {
  const name = "Copilot sign-in";
  if (env.COPILOT_PROVIDER_BASE_URL || /^(1|true|yes|on)$/i.test(env.COPILOT_OFFLINE ?? "")) {
    return { ok: true, name, detail: "a bring-your-own-key provider is configured (COPILOT_PROVIDER_BASE_URL / COPILOT_OFFLINE): no GitHub sign-in needed" };
  }
  const client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: runtime.path, env }) });
  let timer: NodeJS.Timeout | undefined;
  try {
    const status = await Promise.race([
      (async () => {
        await client.start().catch((err: unknown) => {
          throw startError([runtime.path], err);
        });
        return client.getAuthStatus();
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the runtime did not answer within ${timeoutMs / 1000}s`)), timeoutMs);
      }),
    ]);
    if (status.isAuthenticated) {
      return { ok: true, name, detail: `signed in${status.login ? ` as ${status.login}` : ""}${status.authType ? ` (${status.authType})` : ""}` };
    }
    return { ok: false, name, detail: status.statusMessage ?? "not signed in", fix: COPILOT_LOGIN_METHODS.join("; ") };
  } catch (err) {
    return { ok: false, name, detail: `could not ask the runtime: ${errorMessage(err).split("\n")[0]}`, fix: "run the runtime by hand to see why it fails: copilot --version" };
  } finally {
    clearTimeout(timer);
    await client.forceStop().catch(() => undefined);
  }
}

function describeSource(source: RuntimeLocation["source"]): string {
  switch (source) {
    case "executable":
      return "executable in agents.yaml";
    case "COPILOT_CLI_PATH":
      return "from COPILOT_CLI_PATH";
    case "bundled":
      return "bundled with @github/copilot-sdk";
    case "PATH":
      return "copilot on PATH";
  }
}
