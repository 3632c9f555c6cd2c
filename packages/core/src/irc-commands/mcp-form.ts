/**
 * A catalogue command's MCP tool, derived from its arguments and options: the input schema
 * (a zod shape, with the field names the tools have always had: `target`, `timeout_seconds`)
 * and the mapping of a call's arguments to the IPC request's fields.
 */
import type { z as Zod } from "zod";
import type { IrcCommand, ZodNamespace } from "./define.js";

/** The zod shape of the tool's arguments. */
export function mcpInputShape(c: IrcCommand, z: ZodNamespace): Record<string, Zod.ZodType> {
  const shape: Record<string, Zod.ZodType> = {};
  for (const a of c.args) {
    let t: Zod.ZodType =
      a.kind === "count" ? z.number().int().min(1).max(a.max ?? 1000) : a.kind === "text" && a.optional ? z.string() : z.string().min(1);
    const described = a.optional ? t.optional() : t;
    t = described.describe(a.describe + (a.default !== undefined ? ` (default ${String(a.default)})` : ""));
    shape[a.mcpName ?? a.field] = t;
  }
  for (const o of c.options ?? []) {
    shape[o.mcpName ?? o.field] = z.number().positive().max(o.max).optional().describe(`${o.describe} (default ${o.default})`);
  }
  return shape;
}

/** The IPC fields of a call with validated arguments (defaults filled in, as the CLI does). */
export function fieldsFromMcp(c: IrcCommand, args: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const a of c.args) {
    const v = args[a.mcpName ?? a.field];
    if (v !== undefined) fields[a.field] = v;
    else if (a.default !== undefined) fields[a.field] = a.default;
  }
  for (const o of c.options ?? []) fields[o.field] = args[o.mcpName ?? o.field] ?? o.default;
  return fields;
}
