/** Every wire API the scripted model server speaks by default. */
import { anthropicMessagesDialect } from "./anthropic-messages.js";
import type { ModelApiDialect } from "./dialect.js";
import { geminiDialect } from "./gemini.js";
import { openAiChatDialect } from "./openai-chat.js";
import { openaiResponsesDialect } from "./openai-responses.js";

export { anthropicMessagesDialect } from "./anthropic-messages.js";
export { geminiDialect } from "./gemini.js";
export { openAiChatDialect } from "./openai-chat.js";
export { openaiResponsesDialect } from "./openai-responses.js";

/** The built-in dialects, tried in order. */
export const BUILT_IN_DIALECTS: ModelApiDialect[] = [anthropicMessagesDialect, openaiResponsesDialect, openAiChatDialect, geminiDialect];
