// The stream worker: parses streamed Markdown off the page's main thread (marked's lexer and
// highlight.js cost several ms per KB in WebKit's engine, more than a frame when a reply
// streams fast). The page sends each stream's text as appends; the worker answers, at most
// once per batch of messages, with the blocks completed since and the open block, as HTML
// that the page sanitizes before showing (liveWorker.ts). One worker serves every stream.
import { StreamParse } from "./streamParse";
import { failedReply, type StreamReply, type StreamRequest } from "./streamProtocol";

// The worker's global scope (the page's DOM typings describe a window, whose postMessage differs).
const scope = self as unknown as {
  postMessage(message: StreamReply): void;
  onmessage: ((event: MessageEvent<StreamRequest>) => void) | null;
};

const streams = new Map<number, { parse: StreamParse; seq: number; dirty: boolean }>();
let scheduled = false;

function flush() {
  scheduled = false;
  for (const [id, stream] of streams) {
    if (!stream.dirty) continue;
    stream.dirty = false;
    let reply: StreamReply;
    try {
      reply = { id, seq: stream.seq, ...stream.parse.take() };
    } catch {
      // The page shows the text its own way (liveWorker.ts falls back).
      reply = failedReply(id, stream.seq);
    }
    scope.postMessage(reply);
  }
}

scope.onmessage = (event) => {
  const m = event.data;
  if (m.kind === "close") {
    streams.delete(m.id);
    return;
  }
  let stream = streams.get(m.id);
  if (!stream) {
    stream = { parse: new StreamParse(), seq: 0, dirty: false };
    streams.set(m.id, stream);
  }
  if (m.kind === "set") stream.parse.set(m.text);
  else stream.parse.append(m.text);
  stream.seq = m.seq;
  stream.dirty = true;
  // Messages already queued are taken in first: one parse answers them all.
  if (!scheduled) {
    scheduled = true;
    setTimeout(flush, 0);
  }
};
