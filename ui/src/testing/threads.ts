// Threads for the UI's unit tests: a detail with `turns` turns of one prompt and one reply.
import type { ThreadDetail } from "../bindings/ThreadDetail";
import type { TurnView } from "../bindings/TurnView";
import { NO_COST } from "../cost/cost";

export { NO_COST };

export function turn(n: number): TurnView {
  return {
    id: `turn-${n}`,
    number: n as unknown as bigint,
    native_turn_ref: `r${n}`,
    native_checkpoint_ref: null,
    forks: [],
    usage: null,
    model: null,
    complete: true,
    cost_usd: null,
    priced_by: "unknown",
    inherited: false,
    messages: [
      { role: "user", text: `prompt ${n}`, tool: null, error: null },
      { role: "assistant", text: `reply ${n}`, tool: null, error: null },
    ],
  };
}

export function threadDetail(id: string, turns = 2, over: Partial<ThreadDetail> = {}): ThreadDetail {
  return {
    id,
    harness: "claude",
    cwd: "/home/me/proj",
    title: `Thread ${id}`,
    state: "ready",
    native: { session_id: `s-${id}`, path: `/s-${id}.jsonl` },
    fork: null,
    permissions: { mode: null, sandbox: null },
    revision: 1,
    created_at: 1,
    updated_at: 2,
    turns: Array.from({ length: turns }, (_, i) => turn(i + 1)),
    cost: NO_COST,
    moved_from: null,
    ...over,
  };
}
