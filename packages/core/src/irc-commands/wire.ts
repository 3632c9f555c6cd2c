/**
 * zod pieces for the IPC request fields, in the reference wire format (field names, numbers
 * also as decimal strings, `null` for "not given"), each with an error that names the field.
 * Functions of `z` for the reason given in define.ts.
 */
import type { z as Zod } from "zod";
import type { ZodNamespace } from "./define.js";

/** A channel or nick: CR, LF and NUL removed, trimmed, not blank, no spaces. */
export function wireTarget(z: ZodNamespace, field: string): Zod.ZodType<string> {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `missing field "${field}" (a string)` : `field "${field}" must be a string`) })
    .transform((s) => s.replace(/[\r\n\0]/g, "").trim())
    .refine((s) => s.length > 0, `field "${field}" is empty`)
    .refine((s) => !/\s/.test(s), `field "${field}" must not contain spaces`);
}

/** A string (any text, may be empty unless `nonEmpty`). */
export function wireText(z: ZodNamespace, field: string, nonEmpty = false): Zod.ZodType<string> {
  const s = z.string({ error: (iss) => (iss.input === undefined ? `missing field "${field}" (a string)` : `field "${field}" must be a string`) });
  return nonEmpty ? s.refine((v) => v.trim().length > 0, `field "${field}" is empty`) : s;
}

/** An optional string; `null` counts as not given. */
export function wireOptionalText(z: ZodNamespace, field: string): Zod.ZodType<string | undefined> {
  return z.preprocess((v) => (v === null ? undefined : v), z.string({ error: `field "${field}" must be a string` }).optional());
}

/**
 * An optional number (a JSON number or a decimal string); `null` counts as not given, then
 * `fallback`. `int` requires a whole number; `min` is the smallest value allowed.
 */
export function wireNumber(z: ZodNamespace, field: string, o: { fallback: number; int?: boolean; min: number; exclusive?: boolean }): Zod.ZodType<number> {
  return z.preprocess(
    (v) => (v === null || v === undefined ? o.fallback : typeof v === "string" && v.trim() !== "" ? Number(v) : v),
    z
      .number({ error: `field "${field}" must be a number` })
      .refine((n) => Number.isFinite(n), `field "${field}" must be a number`)
      .refine((n) => !o.int || Number.isInteger(n), `field "${field}" must be an integer`)
      .refine((n) => (o.exclusive ? n > o.min : n >= o.min), { error: (iss) => `field "${field}" must be ${o.exclusive ? "greater than" : "at least"} ${o.min}, got ${String(iss.input)}` }),
  ) as Zod.ZodType<number>;
}
