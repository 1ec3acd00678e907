// Changed files and their diff, as text: each line a text node coloured by its kind (never HTML
// from the diff). Unified, or split side by side.
import { useMemo, useState } from "react";
import type { FileChangeStatus } from "../bindings/FileChangeStatus";
import type { FileChangeView } from "../bindings/FileChangeView";
import { type DiffLine, diffLines } from "./lineage";

const STATUS_MARK: Record<FileChangeStatus, string> = { added: "A", modified: "M", deleted: "D", renamed: "R" };

export function FileList(props: {
  files: FileChangeView[];
  selected: string | null;
  onSelect: (path: string | null) => void;
}) {
  if (props.files.length === 0) {
    return (
      <p className="files-empty" data-files-empty="true">
        No changed files.
      </p>
    );
  }
  return (
    <ul className="file-list" aria-label="Changed files">
      {props.files.map((f) => (
        <li key={f.path}>
          <button
            type="button"
            className="file-list__item"
            data-file-path={f.path}
            data-status={f.status}
            aria-pressed={props.selected === f.path}
            onClick={() => props.onSelect(props.selected === f.path ? null : f.path)}
            title={f.old_path ? `${f.old_path} → ${f.path}` : f.path}
          >
            <span className={`file-status file-status--${f.status}`} title={f.status}>
              {STATUS_MARK[f.status]}
            </span>
            <span className="file-list__path">{f.path}</span>
            <span className="file-list__status">{f.status}</span>
            {f.binary ? (
              <span className="file-list__counts">binary</span>
            ) : (
              <span className="file-list__counts">
                <span className="diff-add-count" data-added={f.added_lines}>
                  +{f.added_lines}
                </span>{" "}
                <span className="diff-del-count" data-removed={f.removed_lines}>
                  −{f.removed_lines}
                </span>
              </span>
            )}
          </button>
        </li>
      ))}
    </ul>
  );
}

interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/** Pairs a unified diff's lines into rows of a split view. */
export function splitRows(lines: DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    }
    dels = [];
    adds = [];
  };
  for (const line of lines) {
    if (line.kind === "del") dels.push(line);
    else if (line.kind === "add") adds.push(line);
    else {
      flush();
      rows.push(line.kind === "context" ? { left: line, right: line } : { left: line, right: null });
    }
  }
  flush();
  return rows;
}

export function DiffText({ diff }: { diff: string }) {
  const [split, setSplit] = useState(false);
  const lines = useMemo(() => diffLines(diff), [diff]);
  const rows = useMemo(() => (split ? splitRows(lines) : []), [split, lines]);
  if (lines.length === 0) return null;
  return (
    <div className="diff" data-diff-view={split ? "split" : "unified"}>
      <div className="diff__bar">
        <div className="segmented segmented--small" role="radiogroup" aria-label="Diff view">
          {(["unified", "split"] as const).map((v) => (
            <label key={v} className="segmented__item" data-checked={(v === "split") === split ? "true" : undefined}>
              <input type="radio" name="diff-view" checked={(v === "split") === split} onChange={() => setSplit(v === "split")} />
              {v === "unified" ? "Unified" : "Split"}
            </label>
          ))}
        </div>
      </div>
      {split ? (
        <div className="diff__body diff__body--split" data-diff-text="true">
          {rows.map((r, i) => (
            <div key={i} className="diff-split-row">
              <span className={`diff-line diff-line--${r.left?.kind ?? "empty"}`}>{r.left?.text ?? ""}</span>
              <span className={`diff-line diff-line--${r.right?.kind ?? "empty"}`}>
                {r.right?.kind === "file" || r.right?.kind === "hunk" ? "" : (r.right?.text ?? "")}
              </span>
            </div>
          ))}
        </div>
      ) : (
        <pre className="diff__body" data-diff-text="true">
          {lines.map((l, i) => (
            <span key={i} className={`diff-line diff-line--${l.kind}`}>
              {l.text}
              {"\n"}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}

/** Files on the left, the diff of the chosen file (or all) beside; each file's diff is its own, from Rust. */
export function ChangesBody({ files }: { files: FileChangeView[] }) {
  const [selected, setSelected] = useState<string | null>(null);
  const chosen = files.filter((f) => selected === null || f.path === selected);
  const shown = useMemo(() => (chosen.length ? chosen : files).map((f) => f.diff).join(""), [chosen, files]);
  return (
    <div className="changes">
      <FileList files={files} selected={selected} onSelect={setSelected} />
      <DiffText diff={shown} />
    </div>
  );
}
