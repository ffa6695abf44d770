/**
 * A web service that hosts a procedure with Weft's library API: `createConversation(pdl, options)` per
 * session, `send(text) → { reply, events }` per request. Sessions are kept in Weft's store as they happen, so a
 * restart of the service loses nothing: a request for a session it does not hold in memory takes it up again.
 *
 *   POST /sessions                      → 201 { sessionId }
 *   POST /sessions/{id}/messages {text} → 200 { reply, ended, toolCalls: [{ name, ok }] }
 *                                         (409 while the session is answering another message, 404 unknown, 410 ended)
 *   GET  /sessions/{id}                 → 200 { sessionId, transcript, totals }
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ChatModel,
  type Conversation,
  createConversation,
  isWeftError,
  loadPdlFile,
  openRunStore,
  sessionStoreOf,
  type ToolSet,
  transcriptOf,
} from '../../src/index.js';

export interface ProcedureServiceOptions {
  readonly pdlFile: string;
  readonly tools: ToolSet;
  readonly model: ChatModel;
  /** Weft's home: its SQLite store keeps the sessions. */
  readonly home: string;
  readonly port?: number;
}

export interface ProcedureService {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

export async function startProcedureService(options: ProcedureServiceOptions): Promise<ProcedureService> {
  const pdl = await loadPdlFile(options.pdlFile);
  const runStore = await openRunStore({ home: options.home });
  const store = sessionStoreOf(runStore);
  // Promises, not conversations: two requests for a session not yet held must share one take-up, or each would
  // make its own Conversation and their turns would interleave in the session.
  const live = new Map<string, Promise<Conversation>>();
  const open = (sessionId?: string) =>
    createConversation(pdl, {
      model: options.model,
      tools: options.tools,
      store,
      ...(sessionId ? { sessionId } : {}),
    });

  async function conversationOf(sessionId: string): Promise<Conversation | undefined> {
    let held = live.get(sessionId);
    if (!held) {
      if (!(await store.getSession(sessionId))) return undefined;
      held = live.get(sessionId) ?? open(sessionId);
      live.set(sessionId, held);
      // A failed take-up is not kept: the next request tries again.
      held.catch(() => live.delete(sessionId));
    }
    return held;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'POST' && path === '/sessions') {
      const conversation = await open();
      live.set(conversation.sessionId, Promise.resolve(conversation));
      return send(res, 201, { sessionId: conversation.sessionId });
    }
    const match = /^\/sessions\/([\w.:-]{1,128})(\/messages)?$/.exec(path);
    if (!match) return send(res, 404, { error: 'not found' });
    const sessionId = match[1] as string;
    if (req.method === 'GET' && !match[2]) {
      if (!(await store.getSession(sessionId))) return send(res, 404, { error: `no session ${sessionId}` });
      const events = (await store.sessionEvents(sessionId)).map((stored) => stored.event);
      const { entries, totals } = transcriptOf(events as Parameters<typeof transcriptOf>[0]);
      return send(res, 200, { sessionId, transcript: entries, totals });
    }
    if (req.method !== 'POST' || !match[2]) return send(res, 405, { error: 'method not allowed' });
    const body = await readJson(req);
    if (typeof body?.text !== 'string') return send(res, 400, { error: 'expected a JSON body { "text": "..." }' });
    const conversation = await conversationOf(sessionId);
    if (!conversation) return send(res, 404, { error: `no session ${sessionId}` });
    if (conversation.state.ended) return send(res, 410, { error: `session ${sessionId} has ended` });
    // A turn a crash cut short is finished first; the new message is then answered, not dropped.
    const cut = conversation.pendingTurn ? await conversation.continueTurn() : undefined;
    const turn = cut?.ended ? cut : await conversation.send(body.text);
    const events = cut && cut !== turn ? [...cut.events, ...turn.events] : turn.events;
    const toolCalls = events.flatMap((event) =>
      event.type === 'tool-result' ? [{ name: event.name, ok: event.ok }] : [],
    );
    return send(res, 200, { reply: turn.reply, ended: turn.ended, toolCalls });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A second message while a session answers one is the client's mistake, not the server's.
      const busy = isWeftError(error) && error.message.includes('already answering');
      send(res, busy ? 409 : isWeftError(error) && error.code === 'BAD_INPUT' ? 400 : 500, {
        error: error instanceof Error ? error.message : String(error),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(
        [...live.values()].map((held) => held.then((conversation) => conversation.close()).catch(() => {})),
      );
      await runStore.close();
    },
  };
}

async function readJson(req: IncomingMessage): Promise<{ text?: unknown } | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as { text?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
