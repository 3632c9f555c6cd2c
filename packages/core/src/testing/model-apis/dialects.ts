/** Every wire API the scripted model server speaks by default. Each helper adds its dialect here. */
import type { ModelApiDialect } from "./dialect.js";
import { geminiDialect } from "./gemini.js";
import { openAiChatDialect } from "./openai-chat.js";

export { openAiChatDialect } from "./openai-chat.js";
export { geminiDialect } from "./gemini.js";

/** The built-in dialects, tried in order. */
export const BUILT_IN_DIALECTS: ModelApiDialect[] = [openAiChatDialect, geminiDialect];
