import { describe, expect, it } from "vitest";
import type { HarnessReport } from "../bindings/HarnessReport";
import type { ThreadDetail } from "../bindings/ThreadDetail";
import { NO_COST } from "../testing/threads";
import { startLive } from "../threads/live";
import { buildRows, forkAbility, rowIndexOf } from "./rows";
import { setupFields } from "../testing/harnessReport";

export function detail(turns: number, extra: Partial<ThreadDetail> = {}): ThreadDetail {
  return {
    id: "t",
    harness: "claude",
    cwd: "/w",
    title: "T",
    state: "ready",
    native: { session_id: "s", path: "/s.jsonl" },
    fork: null,
    permissions: { mode: null, sandbox: null },
    revision: 1,
    created_at: 1,
    updated_at: 1,
    turns: Array.from({ length: turns }, (_, i) => ({
      id: `turn-${i + 1}`,
      number: i + 1 as unknown as bigint,
      native_turn_ref: `n${i}`,
      native_checkpoint_ref: null,
      forks: [],
      usage: null,
      model: null,
      complete: true,
      cost_usd: null,
      priced_by: "unknown",
      inherited: false,
      messages: [
        { role: "user", text: `prompt ${i + 1}`, tool: null, error: null },
        { role: "assistant", text: `reply ${i + 1}`, tool: null, error: null },
      ],
    })),
    cost: NO_COST,
    moved_from: null,
    ...extra,
  };
}

const claude: HarnessReport = {
  name: "claude",
  path: "/bin/claude",
  version: "2",
  capabilities: { boundaries: ["after", "before", "latest"], granularity: "turn", eager_fork: false, note: null, snapshots: false },
  error: null,
  found_by: "path",
  notes: [],
  support: "verified",
  permission_modes: ["default", "acceptEdits"],
  sandboxes: [],
  ...setupFields("claude"),
};

describe("rows", () => {
  it("puts a turn's cost on its last reply, and none on a turn still running", () => {
    const d = detail(2);
    d.turns[0] = { ...d.turns[0]!, cost_usd: 0.5, priced_by: "table" };
    d.turns[1] = { ...d.turns[1]!, complete: false };
    const rows = buildRows(d, undefined, claude, () => undefined);
    const costs = rows.map((r) => (r.kind === "message" ? (r.cost?.cost_usd ?? null) : "-"));
    expect(costs).toEqual([null, 0.5, null, null]);
  });

  it("lists every message with its turn and role, and a live turn after", () => {
    const rows = buildRows(detail(2), { ...startLive("next", 2), phase: "streaming" }, claude, () => undefined);
    expect(rows.map((r) => [r.kind, r.turn, r.kind === "status" ? "-" : r.role])).toEqual([
      ["message", 1, "user"],
      ["message", 1, "assistant"],
      ["message", 2, "user"],
      ["message", 2, "assistant"],
      ["live", 3, "user"],
      ["status", 3, "-"],
    ]);
    const live = rows[4]!;
    expect(live.kind === "live" && live.fork).toEqual({ ok: false, why: "Can't fork: this turn is still running" });
    expect(rowIndexOf(rows, 2, "user")).toBe(2);
    expect(rowIndexOf(rows, 2, "assistant")).toBe(3);
  });

  it("places fork chips on the user message (before) or the last reply (after)", () => {
    const d = detail(1);
    d.turns[0]!.forks = ["fa", "fb"];
    const rows = buildRows(d, undefined, claude, (id) => (id === "fb" ? "before" : "after"));
    expect(rows[0]?.kind === "message" && rows[0].forks).toEqual(["fb"]);
    expect(rows[1]?.kind === "message" && rows[1].forks).toEqual(["fa"]);
  });

  it("says why a fork is impossible", () => {
    expect(forkAbility({ state: "missing", harness: "claude" }, "assistant", claude)).toMatchObject({ ok: false });
    // A fork whose session starts with its first prompt forks too (the Host decides).
    expect(forkAbility({ state: "pending", harness: "claude" }, "user", claude)).toEqual({ ok: true });
    const after: HarnessReport = { ...claude, capabilities: { ...claude.capabilities!, boundaries: ["after"], note: "old version" } };
    const ab = forkAbility({ state: "ready", harness: "claude" }, "user", after);
    expect(ab).toEqual({ ok: false, why: "Can't fork: claude can't fork before a turn (old version)" });
    expect(forkAbility({ state: "ready", harness: "claude" }, "assistant", after)).toEqual({ ok: true });
    const gone: HarnessReport = { ...claude, path: null, capabilities: null, error: "not on PATH" };
    expect(forkAbility({ state: "ready", harness: "claude" }, "assistant", gone)).toEqual({
      ok: false,
      why: "Can't fork: claude is not available (not on PATH)",
    });
    expect(forkAbility({ state: "ready", harness: "claude" }, "assistant", undefined)).toEqual({ ok: true });
  });

  it("refuses a fork where an ACP agent has no copy of the session, and lets it continue elsewhere", () => {
    const opencode: HarnessReport = {
      ...claude,
      name: "opencode",
      capabilities: { ...claude.capabilities!, snapshots: true },
    };
    const d = detail(3, { harness: "opencode" });
    // Turn 1 came from outside Forkhost; turns 2 and 3 were taken here and have their copies.
    d.turns[1]!.native_checkpoint_ref = "ses_2";
    d.turns[2]!.native_checkpoint_ref = "ses_3";
    const fork = buildRows(d, undefined, opencode, () => undefined).map((r) => (r.kind === "message" ? r.fork : null));
    const refused = {
      ok: false,
      carries: true,
      why: "Can't fork here: OpenCode has no copy of the session after turn 1 (it was made outside Forkhost): continue in another agent instead",
    };
    // Before turn 1 (a new session) forks; after turn 1 and before turn 2 need turn 1's copy.
    expect(fork).toEqual([{ ok: true }, refused, refused, { ok: true }, { ok: true }, { ok: true }]);
    // A harness that keeps its own checkpoints is not judged by them.
    const rows = buildRows(detail(1), undefined, claude, () => undefined);
    expect(rows.every((r) => r.kind !== "message" || r.fork.ok)).toBe(true);
  });
});
