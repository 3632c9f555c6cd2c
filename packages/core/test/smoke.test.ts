import { expect, it } from "vitest";
import { hello } from "../src/index.js";
it("adds", () => expect(hello(1)).toBe(2));
