// The conversation's header: the thread's title, harness and state, its folder and files, the
// controls that act on the thread (Undo rewind, session rules, permission mode, Terminal), and
// under them the lineage line and the folder's bars. Chips that do not fit the row fold into a
// "+N" menu (headerFold.ts decides which; this file measures).
import { type MouseEvent, type RefObject, useLayoutEffect, useRef, useState } from "react";
import type { BranchCost } from "../bindings/BranchCost";
import type { ThreadView } from "../bindings/ThreadView";
import { CostChip, hasCost } from "../cost/CostChip";
import { FolderBar, FolderChip } from "../files/FolderChip";
import { harnessName } from "../harnesses";
import { hostOf } from "../remote/remote";
import { UndoRewind } from "../rewind/UndoRewind";
import { openTab } from "../tabs/tabs";
import { TerminalIcon } from "../ui/icons";
import { showMenu } from "../ui/menu";
import { GrantsControl } from "./GrantsControl";
import { type HeaderChip, foldedChips } from "./headerFold";
import { LineageLine, MovedFromLine } from "./LineageLine";
import type { BranchOrigin } from "../bindings/BranchOrigin";
import { ModeControl } from "./ModeControl";

/** A folder as the header shows it: the home folder as `~`, a long path by its end. */
export function shortPath(path: string): string {
  const home = /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(\/|$)/.exec(path);
  const p = home ? `~${path.slice(home[1]?.length ?? 0)}` : path;
  return p.length > 48 ? `…${p.slice(-47)}` : p;
}

/** The chips that fold, the first kept longest: what the folder is, then Pi's note. */
const FOLD_ORDER = ["folder", "mode"];
/** The folder's path gives up its room down to this before a chip folds. */
const PATH_KEEPS = 120;
/** The title's widest, as a share of the row (styles/files.css, .conv-head__title). */
const TITLE_SHARE = 0.38;
/** The "+N" button's width (styles/conversation.css, .conv-head__more). */
const MORE_WIDTH = 34;

/** The row's chips (`data-header-chip`) and the room the rest of it keeps, as laid out now. */
function measureRow(row: HTMLElement): { width: number; fixed: number; gap: number; chips: HeaderChip[] } {
  const gap = parseFloat(getComputedStyle(row).columnGap) || 0;
  const chips: HeaderChip[] = [];
  let fixed = 0;
  let items = 0;
  for (const el of Array.from(row.children) as HTMLElement[]) {
    const chip = el.dataset.headerChip;
    if (chip) chips.push({ key: chip, width: el.offsetWidth });
    else if (el.dataset.headerMore === undefined) {
      items++;
      // The spacer takes what is left; the path shrinks (to an ellipsis) before a chip folds,
      // the title only after every chip folded: each counts at the width it keeps, not at the
      // width it has now, so that what folds does not depend on what is folded.
      if (el.classList.contains("conv-head__spacer")) continue;
      if (el.classList.contains("conv-head__cwd")) fixed += Math.min(el.scrollWidth, PATH_KEEPS);
      else if (el.classList.contains("conv-head__title")) fixed += Math.min(el.scrollWidth, row.clientWidth * TITLE_SHARE);
      else fixed += el.offsetWidth;
    }
  }
  chips.sort((a, b) => FOLD_ORDER.indexOf(a.key) - FOLD_ORDER.indexOf(b.key));
  return { width: row.clientWidth, fixed: fixed + Math.max(0, items - 1) * gap, gap, chips };
}

/**
 * Which chips are folded, measured when the row is laid out, when its width changes and when
 * what it shows changes (a chip's words, a button that comes or goes).
 */
function useFoldedChips(row: RefObject<HTMLDivElement | null>): string[] {
  const [folded, setFolded] = useState<string[]>([]);
  useLayoutEffect(() => {
    const el = row.current;
    if (!el) return;
    const measure = () => {
      const { chips, ...room } = measureRow(el);
      const next = foldedChips({ ...room, more: MORE_WIDTH }, chips);
      setFolded((now) => (now.join() === next.join() ? now : next));
    };
    measure();
    const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    resize?.observe(el);
    const changes = typeof MutationObserver === "undefined" ? null : new MutationObserver(measure);
    changes?.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      resize?.disconnect();
      changes?.disconnect();
    };
  }, [row]);
  return folded;
}

export function ConversationHeader({
  thread,
  cost,
  movedFrom,
  terminalOpen,
}: {
  thread: ThreadView;
  /** What the branch cost (the detail's figures); undefined while it is read. */
  cost?: BranchCost;
  /** Where it was continued from, when it came from another machine. */
  movedFrom?: BranchOrigin | null;
  terminalOpen: boolean;
}) {
  const row = useRef<HTMLDivElement>(null);
  const folded = useFoldedChips(row);
  // A remote thread's folder is named with its host ("box:~/src/app").
  const host = hostOf(thread.id);
  // The folded chips' words as the row would show them, each with its tooltip.
  const showFolded = (e: MouseEvent) => {
    const chips = Array.from(row.current?.querySelectorAll<HTMLElement>("[data-header-chip]") ?? []);
    const r = e.currentTarget.getBoundingClientRect();
    showMenu({
      x: r.left,
      y: r.bottom,
      items: chips
        .filter((c) => folded.includes(c.dataset.headerChip ?? ""))
        .map((c) => ({ label: c.textContent ?? "", title: c.title || undefined })),
    });
  };
  return (
    <header className="conv-head">
      <div className="conv-head__row" ref={row}>
        <span className={`harness-dot harness-dot--${thread.harness}`} aria-hidden />
        <h1 className="conv-head__title" title={thread.title}>
          {thread.title}
        </h1>
        <span className="badge">{harnessName(thread.harness)}</span>
        {thread.state !== "ready" && (
          <span className={`badge badge--state badge--${thread.state}`} title={stateHint(thread.state)}>
            {thread.state}
          </span>
        )}
        <span className="conv-head__cwd" title={host ? `${host}:${thread.cwd}` : thread.cwd} data-host={host ?? undefined}>
          {host ? `${host}:${shortPath(thread.cwd)}` : shortPath(thread.cwd)}
        </span>
        <FolderChip thread={thread} folded={folded.includes("folder")} />
        {folded.length > 0 && (
          <button
            type="button"
            className="button button--ghost button--small conv-head__more"
            data-header-more=""
            data-action="header-more"
            aria-haspopup="menu"
            aria-label={`${folded.length} more`}
            title="What did not fit in the header"
            onClick={showFolded}
          >
            +{folded.length}
          </button>
        )}
        <span className="conv-head__spacer" />
        <UndoRewind threadId={thread.id} />
        <GrantsControl threadId={thread.id} />
        <ModeControl thread={thread} folded={folded.includes("mode")} />
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="open-terminal"
          onClick={() => openTab(thread.id, "terminal")}
          title={terminalOpen ? "Show the terminal tab" : "Open the harness's own TUI on this session (Ctrl+Shift+T)"}
        >
          <TerminalIcon width={14} height={14} />
          Terminal
        </button>
      </div>
      {(thread.fork || movedFrom || (cost && hasCost(cost))) && (
        // Under the title: where the branch came from, and what it cost (never folded away).
        <div className="conv-head__meta">
          {thread.fork && <LineageLine fork={thread.fork} harness={thread.harness} />}
          {movedFrom && <MovedFromLine origin={movedFrom} />}
          {cost && <CostChip threadId={thread.id} cost={cost} />}
        </div>
      )}
      <FolderBar thread={thread} />
    </header>
  );
}

function stateHint(state: string) {
  switch (state) {
    case "pending":
      return "The native session is created with the next prompt";
    case "missing":
      return "The native session's file is gone";
    case "archived":
      return "Archived";
    default:
      return state;
  }
}
