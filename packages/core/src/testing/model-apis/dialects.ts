/** Every wire API the scripted model server speaks by default. Each helper adds its dialect here. */
import { anthropicMessagesDialect } from "./anthropic-messages.js";
import type { ModelApiDialect } from "./dialect.js";

/** The built-in dialects, tried in order. */
export const BUILT_IN_DIALECTS: ModelApiDialect[] = [anthropicMessagesDialect];
