// The turn being streamed in a thread, built from Host events until the native session holds it
// (then the thread is re-read and the live turn dropped). Pure functions, unit-tested.
import type { HostEvent } from "../bindings/HostEvent";
import type { LiveTurn } from "../state";

export function startLive(prompt: string | null, baseTurns: number): LiveTurn {
  return {
    prompt,
    items: [],
    phase: "starting",
    outcome: null,
    error: null,
    baseTurns,
    startedAt: Date.now(),
  };
}

/** The live turn after one Host event of its thread. */
export function applyEvent(
  live: LiveTurn | undefined,
  event: HostEvent,
  baseTurns: number,
): LiveTurn | undefined {
  switch (event.type) {
    case "turn_started": {
      const base = live && live.phase !== "ended" ? live : startLive(null, baseTurns);
      return { ...base, phase: "streaming" };
    }
    case "text_delta": {
      const base = live ?? { ...startLive(null, baseTurns), phase: "streaming" as const };
      const items = base.items.slice();
      const last = items[items.length - 1];
      if (last && last.kind === "text") {
        items[items.length - 1] = { kind: "text", text: last.text + event.text };
      } else {
        items.push({ kind: "text", text: event.text });
      }
      return { ...base, items, phase: base.phase === "ended" ? "ended" : "streaming" };
    }
    case "tool_call": {
      const base = live ?? { ...startLive(null, baseTurns), phase: "streaming" as const };
      return {
        ...base,
        items: [
          ...base.items,
          {
            kind: "tool",
            id: event.id,
            name: event.name,
            input: event.input,
            output: null,
            isError: false,
          },
        ],
      };
    }
    case "tool_result": {
      if (!live) return live;
      const items = live.items.slice();
      // The matching call, else the last call still without output.
      let index = -1;
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (item?.kind !== "tool") continue;
        if (event.id !== null ? item.id === event.id : item.output === null) {
          index = i;
          break;
        }
      }
      if (index < 0) return live;
      const tool = items[index];
      if (tool?.kind !== "tool") return live;
      items[index] = { ...tool, output: event.output, isError: event.is_error };
      return { ...live, items };
    }
    case "turn_ended":
      if (!live) {
        return event.outcome === "completed"
          ? undefined
          : {
              ...startLive(null, baseTurns),
              phase: "ended",
              outcome: event.outcome,
              error: event.message,
            };
      }
      return { ...live, phase: "ended", outcome: event.outcome, error: event.message ?? live.error };
    case "error":
      if (!live || live.phase === "ended") return live;
      return { ...live, error: `${event.message}` };
    default:
      return live;
  }
}

/**
 * Whether a re-read thread now holds the live turn, so it can be dropped. A turn that failed or
 * was interrupted before the harness recorded it stays visible (with its outcome).
 */
export function settled(live: LiveTurn, turnsNow: number): boolean {
  if (live.phase !== "ended") return false;
  if (turnsNow > live.baseTurns) return true;
  return live.outcome === "completed";
}
