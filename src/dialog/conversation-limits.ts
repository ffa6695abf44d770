/** Limits of a conversation, apart so that checks and the engine share them without a cycle. */

/** Decisions the bot may make in one user turn (tool calls and rejected proposals count), as the paper's code. */
export const DEFAULT_MAX_ACTIONS_PER_TURN = 5;
/** Largest user message accepted, in UTF-8 bytes; a larger one is refused politely and the session goes on. */
export const MAX_USER_MESSAGE_BYTES = 32_000;
/**
 * Largest tool arguments a proposal may carry, as JSON bytes, and their deepest nesting: a model that sends more is
 * refused (the API is not called) and asked again, and the arguments are not stored (the store refuses deep values,
 * and megabytes of them in every event would bloat each session).
 */
export const MAX_TOOL_ARGS_BYTES = 64_000;
export const MAX_TOOL_ARGS_DEPTH = 32;
/** Longest bot reply or thought kept, in characters; the rest is cut with a note (a runaway model, not a reply). */
export const MAX_BOT_TEXT_CHARS = 64_000;
/**
 * Deepest API result kept as JSON; a deeper one is kept as its JSON text (what the model reads either way), since
 * the store refuses values nested past 512 levels and a server may send anything.
 */
export const MAX_TOOL_RESULT_DEPTH = 64;
