import { describe, expect, it, vi } from "vitest";
import type { ContextMenuItem } from "../state";
import type { LiveRow, MessageRow } from "../messages/rows";
import { type MessageMenuActions, type MessageMenuContext, messageMenuItems } from "./messageMenu";

function message(role: "user" | "assistant", turn: number, over: Partial<MessageRow> = {}): MessageRow {
  return {
    kind: "message",
    key: `turn-${turn}:${role === "user" ? 0 : 1}`,
    turn,
    turnId: `turn-${turn}`,
    role,
    message: { role, text: `${role} text ${turn}`, tool: null, error: null },
    fork: { ok: true },
    forks: [],
    cost: null,
    ...over,
  };
}

function live(role: "user" | "assistant", turn: number): LiveRow {
  return { kind: "live", key: `live-${role}`, turn, role, text: `streaming ${turn}`, item: null, fork: { ok: true } };
}

const context: MessageMenuContext = {
  where: "window",
  harness: "claude",
  inGit: false,
  forkFiles: "worktree",
  hasCheckpoints: true,
  doctor: null,
};

function actions() {
  return {
    fork: vi.fn<MessageMenuActions["fork"]>(),
    race: vi.fn<MessageMenuActions["race"]>(),
    copyText: vi.fn<MessageMenuActions["copyText"]>(),
    copyMarkdown: vi.fn<MessageMenuActions["copyMarkdown"]>(),
    rewind: vi.fn<MessageMenuActions["rewind"]>(),
    continueOnHost: vi.fn<MessageMenuActions["continueOnHost"]>(),
  };
}

function items(row: MessageRow | LiveRow, over: Partial<MessageMenuContext> = {}, act = actions()) {
  return messageMenuItems(row, { ...context, ...over }, act).filter(
    (i): i is ContextMenuItem => i !== "separator",
  );
}

function item(list: ContextMenuItem[], label: string): ContextMenuItem {
  const found = list.find((i) => i.label === label);
  if (!found) throw new Error(`no item "${label}" in ${list.map((i) => i.label).join(", ")}`);
  return found;
}

describe("a message's menu", () => {
  it("offers a reply's items in order, the other place for a fork named", () => {
    const menu = messageMenuItems(message("assistant", 2), context, actions());
    expect(menu.map((i) => (i === "separator" ? "—" : i.label))).toEqual([
      "Fork after this reply",
      "Fork after this reply in a new tab",
      "Continue in Codex",
      "Continue in Pi",
      "Continue on another machine…",
      "Fork ×N…",
      "—",
      "Copy text",
      "Copy as Markdown",
      "Rewind to here…",
    ]);
    expect(items(message("assistant", 2), { where: "tab" })[1]?.label).toBe("Fork after this reply in a new window");
    expect(items(message("assistant", 2)).every((i) => !i.disabled)).toBe(true);
    expect(items(message("assistant", 2))[0]?.shortcut).toBe("Ctrl+Shift+F");
  });

  it("adds the choice of files when the folder is in git", () => {
    const labels = items(message("assistant", 1), { inGit: true }).map((i) => i.label);
    expect(labels.slice(2, 4)).toEqual(["New worktree with the files as of this message (default)", "Same folder"]);
  });

  it("turns every fork item off with the reason when the message cannot fork, and keeps copying", () => {
    const why = "Can't fork: this thread's native session is gone";
    const list = items(message("assistant", 2, { fork: { ok: false, why } }), { inGit: true });
    for (const label of [
      "Fork after this reply",
      "Fork after this reply in a new tab",
      "Same folder",
      "Continue in Pi",
      "Continue on another machine…",
      "Fork ×N…",
    ]) {
      expect(item(list, label)).toMatchObject({ disabled: true, title: why });
    }
    expect(item(list, "Copy text").disabled).toBeFalsy();
    expect(item(list, "Copy as Markdown").disabled).toBe(false);
  });

  it("keeps Continue in another agent on where only the agent's own fork is refused", () => {
    const why = "Can't fork here: OpenCode has no copy of the session after turn 1";
    const row = message("assistant", 1, { fork: { ok: false, why, carries: true } });
    const list = items(row, { harness: "opencode" });
    expect(item(list, "Fork after this reply")).toMatchObject({ disabled: true, title: why });
    for (const label of ["Continue in Claude Code", "Continue in Codex", "Continue in Pi"]) {
      expect(item(list, label).disabled).toBe(false);
    }
  });

  it("sends each item to its action with the row's turn, text and choices", () => {
    const act = actions();
    const list = items(message("assistant", 3), { inGit: true, harness: "codex" }, act);
    item(list, "Fork after this reply").action?.();
    item(list, "Fork after this reply in a new tab").action?.();
    item(list, "Same folder").action?.();
    item(list, "Continue in Claude Code").action?.();
    expect(act.fork.mock.calls).toEqual([[false], [true], [false, "same_folder"], [false, undefined, "claude"]]);
    item(list, "Fork ×N…").action?.();
    // A reply races with an empty prompt; a prompt is prefilled with its own text.
    expect(act.race).toHaveBeenLastCalledWith("");
    item(items(message("user", 3), {}, act), "Fork ×N…").action?.();
    expect(act.race).toHaveBeenLastCalledWith("user text 3");
    item(list, "Copy text").action?.();
    expect(act.copyText).toHaveBeenCalledWith("assistant text 3");
    item(list, "Copy as Markdown").action?.();
    expect(act.copyMarkdown).toHaveBeenCalledWith(3);
    item(list, "Rewind to here…").action?.();
    expect(act.rewind).toHaveBeenLastCalledWith(3);
    item(list, "Continue on another machine…").action?.();
    expect(act.continueOnHost).toHaveBeenCalledTimes(1);
  });

  it("rewinds before a prompt to the turn before it, the prompt back in the composer", () => {
    const act = actions();
    const list = items(message("user", 3), {}, act);
    expect(list[0]?.label).toBe("Edit and fork from here");
    expect(list.map((i) => i.label)).toContain("Continue in Codex from before this message");
    const rewind = item(list, "Rewind to before this message…");
    expect(rewind.disabled).toBe(false);
    rewind.action?.();
    expect(act.rewind).toHaveBeenCalledWith(2, "user text 3");
    // Nothing comes before the first prompt.
    const first = item(items(message("user", 1)), "Rewind to before this message…");
    expect(first.disabled).toBe(true);
    expect(first.title).toContain("Nothing comes before the first message");
  });

  it("keeps a running turn's Markdown and rewind off, and copies its streamed text", () => {
    const act = actions();
    const list = items(live("assistant", 4), {}, act);
    expect(item(list, "Copy as Markdown")).toMatchObject({ disabled: true, title: "This turn is still running" });
    expect(item(list, "Rewind to here…").disabled).toBe(true);
    expect(item(items(live("user", 4)), "Rewind to before this message…").disabled).toBe(true);
    item(list, "Copy text").action?.();
    expect(act.copyText).toHaveBeenCalledWith("streaming 4");
  });
});
