/** Limits of a conversation (issue 13), apart so that checks and the engine share them without a cycle. */

/** Decisions the bot may make in one user turn (tool calls and rejected proposals count), as the paper's code. */
export const DEFAULT_MAX_ACTIONS_PER_TURN = 5;
/** Largest user message accepted, in UTF-8 bytes; a larger one is refused politely and the session goes on. */
export const MAX_USER_MESSAGE_BYTES = 32_000;
