// A message's menu (a right click on it): which items
// it offers, which are off and why, in what words. Pure: the conversation passes what it knows
// of the thread and what each item does, so that the next item is a few lines here and a case in
// messageMenu.test.ts, not another branch of Conversation.tsx.
import type { ForkFilesSetting } from "../bindings/ForkFilesSetting";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";
import { forkFileItems } from "../files/FolderChip";
import { continueItems } from "../fork/continueIn";
import type { ForkFiles } from "../ipc";
import { type LiveRow, type MessageRow, copyText, forkLabel } from "../messages/rows";
import type { ContextMenuItem } from "../state";

/** What the menu needs to know of the thread and the window. */
export interface MessageMenuContext {
  /** Where a fork opens by default (Settings); the other place is offered as its own item. */
  where: "tab" | "window";
  /** The thread's harness: "Continue in" offers the others. */
  harness: HarnessKind | undefined;
  /** The folder is in git: the fork may choose its files (a worktree, the same folder). */
  inGit: boolean;
  forkFiles: ForkFilesSetting;
  hasCheckpoints: boolean;
  /** The harnesses' reports: whether each can take a continued conversation. */
  doctor: HarnessReport[] | null;
}

/** What the items do; each gets what the row says about itself. */
export interface MessageMenuActions {
  fork(invert: boolean, files?: ForkFiles, into?: HarnessKind): void;
  /** Fork ×N…: the race dialog, a user message's text as the prompt. */
  race(prefill: string): void;
  copyText(text: string): void;
  /** The conversation up to this turn, as Markdown. */
  copyMarkdown(turn: number): void;
  /** Rewind to after `turn`; `prefill` goes back into the composer (rewinding before a prompt). */
  rewind(turn: number, prefill?: string): void;
  /** Continue on another machine…: the branch up to here, with its files, on a remote host. */
  continueOnHost(): void;
}

export function messageMenuItems(
  row: MessageRow | LiveRow,
  context: MessageMenuContext,
  actions: MessageMenuActions,
): (ContextMenuItem | "separator")[] {
  const label = forkLabel(row.role);
  const other = context.where === "window" ? "tab" : "window";
  const ok = row.fork.ok;
  const why = row.fork.ok ? undefined : row.fork.why;
  // Refused natively only: the conversation still continues in another agent.
  const carries = !row.fork.ok && row.fork.carries === true;
  const text = row.kind === "message" ? copyText(row.message) : row.text;
  // A live row is the turn still running: what needs its end (its Markdown, a rewind to it) is off.
  const ended = row.kind === "message";
  return [
    { label, shortcut: "Ctrl+Shift+F", disabled: !ok, title: why, action: () => actions.fork(false) },
    { label: `${label} in a new ${other}`, disabled: !ok, title: why, action: () => actions.fork(true) },
    ...forkFileItems(
      context.inGit,
      context.forkFiles,
      ok,
      why,
      (files) => actions.fork(false, files),
      context.hasCheckpoints,
    ),
    ...continueItems(
      context.harness,
      row.role,
      ok || carries,
      carries ? undefined : why,
      (into) => actions.fork(false, undefined, into),
      context.doctor,
    ),
    {
      label: "Continue on another machine…",
      disabled: !ok,
      title: why ?? "This branch as a new session on a remote host (forkhost hosts add), with its files as of this message",
      action: () => actions.continueOnHost(),
    },
    {
      label: "Fork ×N…",
      disabled: !ok,
      title: why ?? "Race several lanes from this message with one prompt, then keep the best",
      action: () => actions.race(row.role === "user" ? text : ""),
    },
    "separator",
    { label: "Copy text", action: () => actions.copyText(text) },
    {
      label: "Copy as Markdown",
      disabled: !ended,
      title: ended
        ? `The conversation from its first turn to turn ${row.turn}, as Markdown`
        : "This turn is still running",
      action: () => actions.copyMarkdown(row.turn),
    },
    row.role === "user"
      ? {
          // Before a prompt: back to the reply before it, the prompt in the composer to edit.
          label: "Rewind to before this message…",
          disabled: !ended || row.turn < 2,
          title:
            row.turn < 2
              ? "Nothing comes before the first message: fork before it instead"
              : "Continue this thread from the reply before this message (its files too), this message back in the composer, keeping the rest as a branch",
          action: () => actions.rewind(row.turn - 1, text),
        }
      : {
          label: "Rewind to here…",
          disabled: !ended,
          title: "Continue this thread from this reply (its files too), keeping the rest as a branch",
          action: () => actions.rewind(row.turn),
        },
  ];
}
