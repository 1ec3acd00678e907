import { memo, useEffect, useState, type MouseEvent } from "react";
import type { ThreadView } from "../bindings/ThreadView";
import { ChevronDownIcon, CopyIcon, EditForkIcon, ForkIcon, Spinner } from "../ui/icons";
import { harnessName } from "../harnesses";
import { LiveMarkdown, Markdown } from "../markdown/Markdown";
import { type ForkAbility, type LiveRow, type MessageRow as MessageRowData, type Role, type StatusRow, forkLabel } from "./rows";
import { ToolBlock } from "./ToolBlock";
import { TurnCost } from "../cost/TurnCost";

export interface ForkButtonProps {
  role: Role;
  ability: ForkAbility;
  busy: boolean;
  /** Where a plain click opens the fork ("window" / "tab"). */
  where: "window" | "tab";
  onFork: (invert: boolean) => void;
}

export function ForkButton({ role, ability, busy, where, onFork }: ForkButtonProps) {
  const label = forkLabel(role);
  const other = where === "window" ? "tab" : "window";
  const title = ability.ok
    ? `${label} — opens in a new ${where} (Ctrl-click: new ${other})`
    : ability.why;
  return (
    <button
      type="button"
      className="msg-action msg-action--fork"
      data-action="fork"
      aria-label={label}
      aria-disabled={!ability.ok || busy ? "true" : undefined}
      aria-busy={busy ? "true" : undefined}
      title={busy ? "Forking…" : title}
      onClick={(e) => {
        e.stopPropagation();
        if (!ability.ok || busy) return;
        onFork(e.metaKey || e.ctrlKey);
      }}
    >
      {busy ? (
        <Spinner size={13} />
      ) : role === "user" ? (
        <EditForkIcon width={14} height={14} />
      ) : (
        <ForkIcon width={14} height={14} />
      )}
      <span>{busy ? "Forking…" : role === "user" ? "Edit & fork" : "Fork"}</span>
    </button>
  );
}

export interface ForkChip {
  id: string;
  title: string;
}

export interface MessageRowProps {
  row: MessageRowData | LiveRow;
  thread: ThreadView;
  /** The first reply row of its turn shows the harness's name. */
  showAuthor: boolean;
  selected: boolean;
  highlighted: boolean;
  forking: boolean;
  where: "window" | "tab";
  chips: ForkChip[];
  onSelect: (row: MessageRowData | LiveRow) => void;
  onFork: (row: MessageRowData | LiveRow, invert: boolean) => void;
  onContextMenu: (row: MessageRowData | LiveRow, event: MouseEvent) => void;
  onChips: (chips: ForkChip[], event: MouseEvent) => void;
  /** What priced the turns their harness did not (the thread's `cost.price_table`). */
  priceTable?: string;
}

function copy(text: string) {
  void navigator.clipboard?.writeText(text).catch(() => {});
}

/** One message: a prompt, a reply (Markdown) or a tool call, with its Fork action. */
export const MessageRow = memo(function MessageRow(props: MessageRowProps) {
  const { row, thread, showAuthor, selected, highlighted, forking, where, chips } = props;
  const live = row.kind === "live";
  const message = row.kind === "message" ? row.message : null;
  const tool =
    row.kind === "message"
      ? message?.tool
        ? {
            name: message.tool.name,
            input: message.tool.input,
            output: message.tool.output,
            isError: message.tool.is_error,
          }
        : null
      : row.item?.kind === "tool"
        ? {
            name: row.item.name,
            input: row.item.input,
            output: row.item.output,
            isError: row.item.isError,
          }
        : null;
  const text = row.kind === "message" ? (message?.text ?? "") : row.text;
  const error = message?.error ?? null;
  const fork = row.fork;

  return (
    <article
      className={`msg msg--${row.role}${tool ? " msg--toolcall" : ""}`}
      data-turn={row.turn}
      data-role={row.role}
      data-live={live ? "true" : undefined}
      data-selected={selected ? "true" : undefined}
      data-highlighted={highlighted ? "true" : undefined}
      onClick={() => props.onSelect(row)}
      onContextMenu={(e) => {
        e.preventDefault();
        props.onContextMenu(row, e);
      }}
    >
      {row.role === "user" && (
        <div className="msg__meta">
          <span className="msg__author">You</span>
          <span className="msg__turn">Turn {row.turn}</span>
        </div>
      )}
      {row.role !== "user" && showAuthor && (
        <div className="msg__meta">
          <span className={`msg__avatar msg__avatar--${thread.harness}`} aria-hidden />
          <span className="msg__author">{harnessName(thread.harness)}</span>
        </div>
      )}
      <div className="msg__body">
        {tool ? (
          <ToolBlock
            name={tool.name}
            input={tool.input}
            output={tool.output}
            isError={tool.isError}
            running={live && tool.output === null}
            expandedKey={row.key}
          />
        ) : row.role === "user" ? (
          <div className="msg__text">{text}</div>
        ) : live ? (
          <LiveMarkdown text={text} />
        ) : (
          <Markdown text={text} />
        )}
        {error && (
          <div className="msg__error" role="alert">
            {error}
          </div>
        )}
      </div>
      <footer className="msg__actions">
        {chips.length > 0 && (
          <button
            type="button"
            className="fork-chip"
            data-action="show-forks"
            title={chips.map((c) => c.title).join("\n")}
            onClick={(e) => {
              e.stopPropagation();
              props.onChips(chips, e);
            }}
          >
            <ForkIcon width={12} height={12} />
            {chips.length === 1 ? "1 fork" : `${chips.length} forks`}
          </button>
        )}
        {row.kind === "message" && row.cost && <TurnCost figure={row.cost} priceTable={props.priceTable} />}
        <span className="msg__spacer" />
        {!tool && (
          <button
            type="button"
            className="msg-action"
            data-action="copy"
            aria-label="Copy message"
            title="Copy"
            onClick={(e) => {
              e.stopPropagation();
              copy(text);
            }}
          >
            <CopyIcon width={14} height={14} />
          </button>
        )}
        <ForkButton
          role={row.role}
          ability={fork}
          busy={forking}
          where={where}
          onFork={(invert) => props.onFork(row, invert)}
        />
        {fork.ok && (
          <button
            type="button"
            className="msg-action msg-action--more"
            data-action="fork-options"
            aria-label="Fork options"
            aria-haspopup="menu"
            title="Fork options: a new worktree or the same folder, a tab or a window"
            onClick={(e) => {
              e.stopPropagation();
              props.onContextMenu(row, e);
            }}
          >
            <ChevronDownIcon width={12} height={12} />
          </button>
        )}
      </footer>
    </article>
  );
});

function elapsed(since: number) {
  const s = Math.max(0, Math.round((Date.now() - since) / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** The live turn's state line: starting, streaming, or how it ended. */
export function StatusLine({ row, harness }: { row: StatusRow; harness: string }) {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (row.phase === "ended") return;
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, [row.phase]);
  if (row.phase === "ended") {
    if (row.outcome === "completed" && !row.error) return null;
    const failed = row.outcome === "failed" || (row.error && row.outcome !== "interrupted");
    return (
      <div
        className={`turn-status turn-status--${failed ? "failed" : "interrupted"}`}
        data-turn={row.turn}
        data-turn-state={failed ? "failed" : "interrupted"}
        role={failed ? "alert" : "status"}
      >
        <span className="turn-status__dot" />
        <strong>{failed ? "Turn failed" : "Interrupted"}</strong>
        {row.error && <span className="turn-status__message">{row.error}</span>}
      </div>
    );
  }
  return (
    <div className="turn-status turn-status--running" data-turn={row.turn} data-turn-state={row.phase} role="status">
      <Spinner size={12} />
      <span>
        {row.phase === "starting" ? `Starting ${harnessName(harness)}…` : "Working…"}{" "}
        <span className="turn-status__time">{elapsed(row.startedAt)}</span>
      </span>
      {row.error && <span className="turn-status__message">{row.error}</span>}
    </div>
  );
}
