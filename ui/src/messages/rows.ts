// A thread as the rows of the virtualized conversation list, and whether each row can fork.
// Pure functions, unit-tested.
import type { HarnessReport } from "../bindings/HarnessReport";
import { harnessName } from "../harnesses";
import type { MessageView } from "../bindings/MessageView";
import type { ThreadDetail } from "../bindings/ThreadDetail";
import type { ThreadView } from "../bindings/ThreadView";
import type { TurnEnd } from "../bindings/TurnEnd";
import type { LiveItem, LiveTurn } from "../state";
import type { TurnFigure } from "../cost/cost";

export type Role = "user" | "assistant" | "tool";

/** The fork action's words for a message of `role` (its button and the first menu item). */
export function forkLabel(role: Role): string {
  if (role === "user") return "Edit and fork from here";
  if (role === "tool") return "Fork after this turn";
  return "Fork after this reply";
}

/** Whether a message can fork, and if not, why (shown as the button's title). */
/**
 * Whether a message can be forked at, and if not why. `carries`: the native fork is refused but
 * the conversation can still continue in another agent (a turn an ACP agent has no copy of).
 */
export type ForkAbility = { ok: true } | { ok: false; why: string; carries?: boolean };

export interface MessageRow {
  kind: "message";
  key: string;
  /** 1-based turn number. */
  turn: number;
  turnId: string;
  role: Role;
  message: MessageView;
  fork: ForkAbility;
  /** Forks made at this message's turn that belong on this message (chip). */
  forks: string[];
  /** The turn's tokens and money, on its last reply (null elsewhere, and while it runs). */
  cost: TurnFigure | null;
}

export interface LiveRow {
  kind: "live";
  key: string;
  turn: number;
  role: Role;
  /** The prompt (user row), or one streamed item. */
  text: string;
  item: LiveItem | null;
  fork: ForkAbility;
}

export interface StatusRow {
  kind: "status";
  key: string;
  turn: number;
  phase: LiveTurn["phase"];
  outcome: TurnEnd | null;
  error: string | null;
  startedAt: number;
  streaming: boolean;
}

export type Row = MessageRow | LiveRow | StatusRow;

export function roleOf(message: MessageView): Role {
  return message.role === "user" || message.role === "tool" ? message.role : "assistant";
}

type Capabilities = NonNullable<HarnessReport["capabilities"]>;

/**
 * Whether `thread` can fork at a message of `role`: a user message forks `before` its turn, a
 * reply `after` it. `report` is the harness's doctor line (undefined while unknown: the Host
 * decides then).
 */
export function forkAbility(
  thread: Pick<ThreadView, "state" | "harness">,
  role: Role,
  report: HarnessReport | undefined,
): ForkAbility {
  if (thread.state === "missing") {
    return { ok: false, why: "Can't fork: this thread's native session is gone" };
  }
  if (thread.state === "creating") {
    return { ok: false, why: "Can't fork: this thread is still being created" };
  }
  if (report) {
    if (!report.capabilities) {
      return {
        ok: false,
        why: `Can't fork: ${report.name} is not available${report.error ? ` (${report.error})` : ""}`,
      };
    }
    const boundary = role === "user" ? "before" : "after";
    if (!report.capabilities.boundaries.includes(boundary)) {
      return { ok: false, why: cannotFork(report.name, boundary, report.capabilities) };
    }
  }
  return { ok: true };
}

/**
 * For an agent whose checkpoints are Forkhost's copies of the session (`snapshots`): a fork that
 * keeps `kept` last needs its copy. `undefined` when that is not what stops it (the turn has
 * one, no turn is kept, or the harness keeps its own checkpoints).
 */
function snapshotAbility(
  kept: ThreadDetail["turns"][number] | undefined,
  report: HarnessReport | undefined,
): ForkAbility | undefined {
  if (!kept || !report?.capabilities?.snapshots || !kept.complete || kept.native_checkpoint_ref) return undefined;
  return {
    ok: false,
    carries: true,
    why: `Can't fork here: ${harnessName(report.name)} has no copy of the session after turn ${kept.number} (it was made outside Forkhost): continue in another agent instead`,
  };
}

function cannotFork(harness: string, boundary: string, caps: Capabilities): string {
  const what = boundary === "before" ? "before a turn" : "after a turn";
  return `Can't fork: ${harness} can't fork ${what}${caps.note ? ` (${caps.note})` : ""}`;
}

const NONE: string[] = [];

const RUNNING: ForkAbility = { ok: false, why: "Can't fork: this turn is still running" };

/**
 * The rows of a thread: every message of every turn, then the live turn (its prompt, streamed
 * items and a status line). `forkBoundary(id)` tells where a fork made at a turn cut, to put
 * its chip on the user message (`before`) or the turn's last reply (`after`).
 */
export function buildRows(
  detail: ThreadDetail,
  live: LiveTurn | undefined,
  report: HarnessReport | undefined,
  forkBoundary: (forkId: string) => string | undefined,
): Row[] {
  const rows: Row[] = [];
  const abilities = {
    user: forkAbility(detail, "user", report),
    assistant: forkAbility(detail, "assistant", report),
    tool: forkAbility(detail, "tool", report),
  };
  let previous: ThreadDetail["turns"][number] | undefined;
  for (const turn of detail.turns) {
    const messages = turn.messages;
    const own = {
      user: snapshotAbility(previous, report) ?? abilities.user,
      assistant: snapshotAbility(turn, report) ?? abilities.assistant,
      tool: snapshotAbility(turn, report) ?? abilities.tool,
    };
    previous = turn;
    const before = turn.forks.length ? turn.forks.filter((id) => forkBoundary(id) === "before") : NONE;
    const after = turn.forks.length ? turn.forks.filter((id) => forkBoundary(id) !== "before") : NONE;
    let lastReply = -1;
    let firstUser = -1;
    messages.forEach((m, i) => {
      const role = roleOf(m);
      if (role !== "user") lastReply = i;
      else if (firstUser < 0) firstUser = i;
    });
    messages.forEach((message, i) => {
      const role = roleOf(message);
      let forks = NONE;
      if (i === firstUser) forks = before;
      if (i === lastReply) forks = after;
      if (lastReply < 0 && i === messages.length - 1) forks = [...before, ...after];
      rows.push({
        kind: "message",
        key: `${turn.id}:${i}`,
        turn: Number(turn.number),
        turnId: turn.id,
        role,
        message,
        fork: own[role],
        forks,
        cost: i === lastReply && turn.complete ? turn : null,
      });
    });
  }
  if (live) rows.push(...liveRows(live));
  return rows;
}

/** The rows of a turn being streamed: its prompt, the streamed items, a status line. */
export function liveRows(live: LiveTurn): Row[] {
  const rows: Row[] = [];
  const turn = live.baseTurns + 1;
  if (live.prompt !== null) {
    rows.push({
      kind: "live",
      key: "live:prompt",
      turn,
      role: "user",
      text: live.prompt,
      item: null,
      fork: RUNNING,
    });
  }
  live.items.forEach((item, i) => {
    rows.push({
      kind: "live",
      key: `live:${i}`,
      turn,
      role: item.kind === "tool" ? "tool" : "assistant",
      text: item.kind === "text" ? item.text : item.name,
      item,
      fork: RUNNING,
    });
  });
  rows.push({
    kind: "status",
    key: "live:status",
    turn,
    phase: live.phase,
    outcome: live.outcome,
    error: live.error,
    startedAt: live.startedAt,
    streaming: live.phase !== "ended",
  });
  return rows;
}

/** Index of the row to reveal for turn `turn` (its user message, or its last reply). */
export function rowIndexOf(rows: Row[], turn: number, role: "user" | "assistant"): number {
  let found = -1;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!row || row.turn !== turn) continue;
    if (role === "user") {
      if (row.kind === "message" && row.role === "user") return i;
      if (found < 0) found = i;
    } else if (row.kind === "message" && row.role !== "user") {
      found = i;
    } else if (found < 0) {
      found = i;
    }
  }
  return found;
}

/** Plain text of a message, for copying. */
export function copyText(message: MessageView): string {
  if (message.tool) {
    const input =
      typeof message.tool.input === "string"
        ? message.tool.input
        : JSON.stringify(message.tool.input, null, 2);
    return `${message.tool.name}\n${input}${message.tool.output ? `\n${message.tool.output}` : ""}`;
  }
  return message.text;
}
