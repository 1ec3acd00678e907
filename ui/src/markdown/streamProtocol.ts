// Messages between the page and the stream worker (streamWorker.ts).
import type { StreamPiece } from "./streamParse";

export type StreamRequest =
  | { kind: "set" | "append"; id: number; seq: number; text: string }
  | { kind: "close"; id: number };

export interface StreamReply extends StreamPiece {
  id: number;
  /** The last request of this stream taken into account. */
  seq: number;
  /** Parsing failed in the worker: the page renders the text itself. */
  failed?: boolean;
}

/** The answer for a stream the worker could not parse (the page renders it itself). */
export function failedReply(id: number, seq: number): StreamReply {
  return { id, seq, failed: true, generation: -1, blocks: [], tail: "", openFence: false, parsedChars: 0 };
}
