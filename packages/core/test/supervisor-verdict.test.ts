// parseVerdict must read what language models actually write: any case, markdown emphasis,
// colons, a "Verdict:" label, bullets, the message on the next line; anything else is OK.
import { describe, expect, it } from "vitest";
import { parseVerdict, type Verdict } from "../src/verdict.js";

const cases: [string, Verdict][] = [
  ["OK", { action: "OK", message: "" }],
  ["ok", { action: "OK", message: "" }],
  ["OK.", { action: "OK", message: "" }],
  ["**OK** — the agent is productive", { action: "OK", message: "" }],
  ["`OK`", { action: "OK", message: "" }],
  ["CORRECTION You've retried this 3 times. Ask #llama-cpp for help.", { action: "CORRECTION", message: "You've retried this 3 times. Ask #llama-cpp for help." }],
  ["correction: refocus on the task", { action: "CORRECTION", message: "refocus on the task" }],
  ["Correction - refocus", { action: "CORRECTION", message: "refocus" }],
  ["CORRECTION — refocus", { action: "CORRECTION", message: "refocus" }],
  ["**CORRECTION**: refocus on the task", { action: "CORRECTION", message: "refocus on the task" }],
  ["**CORRECTION:** refocus on the task", { action: "CORRECTION", message: "refocus on the task" }],
  ["*Correction*: refocus", { action: "CORRECTION", message: "refocus" }],
  ["__CORRECTION__ refocus", { action: "CORRECTION", message: "refocus" }],
  ["Verdict: CORRECTION refocus", { action: "CORRECTION", message: "refocus" }],
  ["verdict - correction: refocus", { action: "CORRECTION", message: "refocus" }],
  ["**Verdict:** CORRECTION refocus", { action: "CORRECTION", message: "refocus" }],
  ["**Verdict**: **CORRECTION** refocus", { action: "CORRECTION", message: "refocus" }],
  ["## Verdict\n\nCORRECTION: refocus", { action: "CORRECTION", message: "refocus" }],
  ["- THINK_DEEPER This architecture decision deserves extended thinking.", { action: "THINK_DEEPER", message: "This architecture decision deserves extended thinking." }],
  ["think deeper: weigh the options", { action: "THINK_DEEPER", message: "weigh the options" }],
  ["**Think-Deeper**: weigh the options", { action: "THINK_DEEPER", message: "weigh the options" }],
  ["THINKDEEPER weigh", { action: "THINK_DEEPER", message: "weigh" }],
  ["ESCALATION: Still no progress.", { action: "ESCALATION", message: "Still no progress." }],
  ["> escalate: humans needed", { action: "ESCALATION", message: "humans needed" }],
  ["CORRECTION:\nYou've retried cmake 4 times.\nAsk for help.", { action: "CORRECTION", message: "You've retried cmake 4 times. Ask for help." }],
  ["Looking at the window, the agent retries cmake.\n\nCORRECTION: stop retrying cmake", { action: "CORRECTION", message: "stop retrying cmake" }],
  ["CORRECTION", { action: "CORRECTION", message: "" }],
];

describe("parseVerdict", () => {
  it.each(cases)("%j", (text, expected) => {
    expect(parseVerdict(text)).toEqual(expected);
  });

  it.each(["", "The agent seems fine.", "Okay", "CORRECTIONS are not needed", "I would say OKish"])("reads %j as an unparsed OK", (text) => {
    expect(parseVerdict(text)).toEqual({ action: "OK", message: "", unparsed: true });
  });
});
