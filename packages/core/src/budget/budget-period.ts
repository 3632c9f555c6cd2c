/**
 * Budget periods in a time zone: the day, ISO week (Monday first) or month an instant falls in,
 * as [start, end) in epoch milliseconds, with a key that names it (`day 2026-11-27`). Computed
 * with Intl alone (no time zone library): the zone's offset at an instant is read from its
 * local wall clock, and a local midnight is found by correcting a first guess twice, which is
 * exact across daylight-saving changes.
 */
import type { BudgetPeriod } from "./budget-schema.js";

/** One period: [start, end) in epoch ms. */
export interface PeriodSpan {
  per: BudgetPeriod;
  /** `day 2026-11-27`, `week 2026-11-23`, `month 2026-11`: the same for every instant in it. */
  key: string;
  start: number;
  end: number;
}

/** The period of `per` that `at` (epoch ms) falls in, in time zone `tz`. */
export function periodOf(at: number, per: BudgetPeriod, tz: string): PeriodSpan {
  const { y, m, d } = localDate(at, tz);
  let startDate: [number, number, number];
  let endDate: [number, number, number];
  if (per === "day") {
    startDate = [y, m, d];
    endDate = [y, m, d + 1];
  } else if (per === "week") {
    const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7; // Monday 0
    startDate = [y, m, d - weekday];
    endDate = [y, m, d - weekday + 7];
  } else {
    startDate = [y, m, 1];
    endDate = [y, m + 1, 1];
  }
  const start = localMidnight(...startDate, tz);
  const end = localMidnight(...endDate, tz);
  const s = new Date(Date.UTC(startDate[0], startDate[1] - 1, startDate[2]));
  const iso = s.toISOString().slice(0, 10);
  const key = per === "month" ? `month ${iso.slice(0, 7)}` : `${per} ${iso}`;
  return { per, key, start, end };
}

/** `2026-11-28 00:00 Europe/Berlin`: a period boundary as people read it. */
export function formatLocal(at: number, tz: string): string {
  const p = parts(at, tz);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${tz}`;
}

/** The zone's offset from UTC at `at`, in ms (local wall clock minus UTC). */
function offsetAt(at: number, tz: string): number {
  const p = parts(at, tz);
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The epoch ms of local midnight of y-m-d (m 1-based; days and months may overflow, Date.UTC normalises). */
function localMidnight(y: number, m: number, d: number, tz: string): number {
  const wall = Date.UTC(y, m - 1, d);
  let t = wall - offsetAt(wall, tz);
  t = wall - offsetAt(t, tz);
  return t;
}

function localDate(at: number, tz: string): { y: number; m: number; d: number } {
  const p = parts(at, tz);
  return { y: +p.year, m: +p.month, d: +p.day };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(at: number, tz: string): Record<"year" | "month" | "day" | "hour" | "minute" | "second", string> {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formatters.set(tz, f);
  }
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(at))) out[p.type] = p.value;
  return out as Record<"year" | "month" | "day" | "hour" | "minute" | "second", string>;
}
