// "Changes in this fork": the files a worktree fork changed since its fork point, their diff, and
// "Bring back to ‹thread›" (the changes applied to that thread's folder as uncommitted changes).
import { useEffect, useState } from "react";
import { Modal } from "../ui/Modal";
import { describeError } from "../errors";
import { Spinner } from "../ui/icons";
import * as ipc from "../ipc";
import type { ChangesView } from "../ipc";
import { threadById, useApp } from "../state";
import { ChangesBody } from "./DiffView";
import { loadFiles } from "./files";
import { lineageOf } from "./lineage";

type Loaded = { state: "loading" } | { state: "ok"; view: ChangesView } | { state: "error"; message: string };

export type BringBack =
  | { state: "idle" }
  | { state: "running" }
  | { state: "applied"; view: ChangesView; target: string }
  | { state: "refused"; code: string; message: string };

export function ChangesDialog({ threadId }: { threadId: string }) {
  const thread = useApp((s) => threadById(s, threadId));
  const threads = useApp((s) => s.threads);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const targets = lineageOf(threads, threadId).filter((t) => t.id !== threadId && t.state !== "archived");
  const [target, setTarget] = useState<string>(() => thread?.fork?.source_thread ?? targets[0]?.id ?? "");
  const [result, setResult] = useState<BringBack>({ state: "idle" });

  useEffect(() => {
    let live = true;
    ipc.changes(threadId, null).then(
      (view) => live && setLoaded({ state: "ok", view }),
      (err) => live && setLoaded({ state: "error", message: describeError(err).message }),
    );
    return () => {
      live = false;
    };
  }, [threadId]);

  const titleOf = (id: string) => threads.find((t) => t.id === id)?.title ?? id;

  const bringBack = async () => {
    if (!target) return;
    setResult({ state: "running" });
    try {
      const view = await ipc.bringBack(threadId, target);
      setResult({ state: "applied", view, target });
      void loadFiles(target);
    } catch (err) {
      const e = err instanceof ipc.IpcError ? err : null;
      // The Host's own words (they name the files), not a generic sentence.
      setResult({ state: "refused", code: e?.code ?? "internal", message: e?.message ?? describeError(err).message });
    }
  };

  return (
    <Modal title={`Changes in this fork${thread ? ` — ${thread.title}` : ""}`} label="changes" wide>
      <div className="form" data-changes-of={threadId}>
        {loaded.state === "loading" && (
          <p className="muted">
            <Spinner size={12} /> Reading the fork's changes…
          </p>
        )}
        {loaded.state === "error" && (
          <p className="form__error" role="alert">
            {loaded.message}
          </p>
        )}
        {loaded.state === "ok" && (
          <>
            <p className="muted">
              Since its fork point ({loaded.view.from.slice(0, 8)}): {loaded.view.files.length}{" "}
              {loaded.view.files.length === 1 ? "file" : "files"} changed.
            </p>
            <ChangesBody files={loaded.view.files} />
            {targets.length > 0 && loaded.view.files.length > 0 && (
              <div className="bring-back">
                <label className="field__label" htmlFor="bring-back-target">
                  Bring back to
                </label>
                <select
                  id="bring-back-target"
                  className="input"
                  data-field="bring-back-target"
                  value={target}
                  onChange={(e) => {
                    setTarget(e.target.value);
                    setResult({ state: "idle" });
                  }}
                >
                  {targets.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.title}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="button button--primary"
                  data-action="bring-back"
                  disabled={!target || result.state === "running"}
                  onClick={() => void bringBack()}
                  title="Apply these changes to that thread's folder as uncommitted changes"
                >
                  {result.state === "running" && <Spinner size={12} />}
                  Bring back to {titleOf(target)}
                </button>
              </div>
            )}
            <BringBackResult result={result} titleOf={titleOf} />
          </>
        )}
      </div>
    </Modal>
  );
}

export function BringBackResult({ result, titleOf }: { result: BringBack; titleOf: (id: string) => string }) {
  if (result.state === "applied") {
    return (
      <div className="bring-back__result" data-bring-back-result="applied" role="status">
        <strong>
          Applied to {titleOf(result.target)} as uncommitted changes ({result.view.files.length}{" "}
          {result.view.files.length === 1 ? "file" : "files"}):
        </strong>
        <ul>
          {result.view.files.map((f) => (
            <li key={f.path} data-applied-path={f.path}>
              {f.status} {f.path} (+{f.added_lines} −{f.removed_lines})
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (result.state === "refused") {
    return (
      <div className="bring-back__result bring-back__result--refused" data-bring-back-result={result.code === "conflict" ? "conflict" : "error"} role="alert">
        <strong>{result.code === "conflict" ? "Not applied: the target changed these files too." : "Not applied."}</strong>
        <p>{result.message}</p>
      </div>
    );
  }
  return null;
}
