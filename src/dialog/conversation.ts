/** A conversation with a procedure: the engine and its types, as the public API exports them. */
export { createConversation, newSessionId } from './create-conversation.js';
export * from './conversation-types.js';
