import { createContext, memo, useContext, useRef, useState } from "react";
import { ChevronIcon, Spinner, ToolIcon } from "../ui/icons";

export interface ToolBlockProps {
  name: string;
  input: unknown;
  output: string | null;
  isError: boolean;
  /** Still waiting for its result. */
  running?: boolean;
  /** Remembered across re-mounts of virtualized rows. */
  expandedKey?: string;
}

const expanded = new Set<string>();

/** Re-measures the list row holding an element (a virtualized list's `measureElement`). */
export const RemeasureContext = createContext<((row: Element) => void) | null>(null);

/** A one-line hint of what the call does: its command, path or pattern. */
export function toolSummary(input: unknown): string {
  let text = "";
  if (typeof input === "string") {
    text = input;
  } else if (input && typeof input === "object") {
    const o = input as Record<string, unknown>;
    for (const key of ["command", "cmd", "file_path", "path", "pattern", "url", "query", "description"]) {
      const v = o[key];
      if (typeof v === "string" && v.trim()) {
        text = v;
        break;
      }
      if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
        text = v.join(" ");
        break;
      }
    }
    if (!text) {
      const first = Object.values(o).find((v) => typeof v === "string");
      text = typeof first === "string" ? first : "";
    }
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > 96 ? `${text.slice(0, 95)}…` : text;
}

function pretty(input: unknown): string {
  if (typeof input === "string") return input;
  try {
    return JSON.stringify(input, null, 2);
  } catch {
    return String(input);
  }
}

/** How much of a tool's input or output is shown before "Show all". */
export const CLIP_LINES = 20;
export const CLIP_CHARS = 8 * 1024;

/** The first `lines` lines / `chars` characters of `text`, and whether anything was left out. */
export function clip(
  text: string,
  lines = CLIP_LINES,
  chars = CLIP_CHARS,
): { shown: string; cut: boolean } {
  let end = Math.min(text.length, chars);
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0 || at >= end) break;
    if (n === lines - 1) end = at;
  }
  return end < text.length ? { shown: text.slice(0, end), cut: true } : { shown: text, cut: false };
}

/** A tool's input or output: clipped, with "Show all" when it is longer. */
function Clipped({ text, className }: { text: string; className: string }) {
  const [all, setAll] = useState(false);
  const remeasure = useContext(RemeasureContext);
  const ref = useRef<HTMLDivElement>(null);
  const { shown, cut } = all ? { shown: text, cut: false } : clip(text);
  const lines = cut ? countLines(text) : 0;
  return (
    <div ref={ref}>
      <pre className={className}>{shown}</pre>
      {cut && (
        <button
          type="button"
          className="tool__more"
          data-action="show-all"
          onClick={(e) => {
            e.stopPropagation();
            setAll(true);
            requestAnimationFrame(() => {
              const row = ref.current?.closest("[data-index]");
              if (row && remeasure) remeasure(row);
            });
          }}
        >
          Show all ({lines.toLocaleString()} lines, {formatSize(text.length)})
        </button>
      )}
    </div>
  );
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function formatSize(chars: number): string {
  return chars < 1024 ? `${chars} characters` : `${Math.round(chars / 1024).toLocaleString()} KB`;
}

/** A tool call, collapsed to one line; opens to its input and output (clipped). */
export const ToolBlock = memo(function ToolBlock(props: ToolBlockProps) {
  const { name, input, output, isError, running, expandedKey } = props;
  const [open, setOpen] = useState(() => (expandedKey ? expanded.has(expandedKey) : false));
  const remeasure = useContext(RemeasureContext);
  const ref = useRef<HTMLDivElement>(null);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (expandedKey) {
      if (next) expanded.add(expandedKey);
      else expanded.delete(expandedKey);
    }
    // The row changed height: tell the list now rather than when the browser gets to it.
    requestAnimationFrame(() => {
      const row = ref.current?.closest("[data-index]");
      if (row && remeasure) remeasure(row);
    });
  };
  const summary = toolSummary(input);
  const state = running ? "running" : isError ? "error" : output !== null ? "done" : "called";
  return (
    <div className="tool" ref={ref} data-state={state} data-open={open ? "true" : "false"}>
      <button
        type="button"
        className="tool__head"
        aria-expanded={open}
        onClick={(e) => {
          e.stopPropagation();
          toggle();
        }}
      >
        <ChevronIcon className="tool__chevron" width={14} height={14} />
        <ToolIcon className="tool__icon" width={14} height={14} />
        <span className="tool__name">{name}</span>
        {summary && <code className="tool__summary">{summary}</code>}
        <span className="tool__status">
          {running ? (
            <>
              <Spinner size={11} /> running
            </>
          ) : isError ? (
            "failed"
          ) : output !== null ? (
            "done"
          ) : null}
        </span>
      </button>
      {open && (
        <div className="tool__body">
          <div className="tool__label">Input</div>
          <Clipped className="tool__pre" text={pretty(input)} />
          {output !== null && (
            <>
              <div className="tool__label">{isError ? "Error" : "Output"}</div>
              <Clipped className={`tool__pre${isError ? " tool__pre--error" : ""}`} text={output} />
            </>
          )}
        </div>
      )}
    </div>
  );
});
