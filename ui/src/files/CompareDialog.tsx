// Compare two threads of one lineage tree: the code difference between their current files, the
// turns they share (once), then each one's own turns side by side from where they diverge.
import { useEffect, useState } from "react";
import type { ThreadDetail } from "../bindings/ThreadDetail";
import type { TurnView } from "../bindings/TurnView";
import { Modal } from "../ui/Modal";
import { openDialog } from "../ui/open";
import { describeError } from "../errors";
import { Spinner } from "../ui/icons";
import * as ipc from "../ipc";
import type { ChangesView } from "../ipc";
import { threadById, useApp } from "../state";
import { branchText, figureTitle } from "../cost/cost";
import { ChangesBody } from "./DiffView";
import { lineageOf, splitTurns } from "./lineage";

type Load<T> = { state: "loading" } | { state: "ok"; value: T } | { state: "error"; message: string };

function useLoad<T>(key: string, read: () => Promise<T>): Load<T> {
  const [load, setLoad] = useState<{ key: string; load: Load<T> }>({ key, load: { state: "loading" } });
  useEffect(() => {
    let live = true;
    read().then(
      (value) => live && setLoad({ key, load: { state: "ok", value } }),
      (err) => live && setLoad({ key, load: { state: "error", message: describeError(err).message } }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` names what `read` reads
  }, [key]);
  return load.key === key ? load.load : { state: "loading" };
}

export function CompareDialog({ threadId, other }: { threadId: string; other: string | null }) {
  const thread = useApp((s) => threadById(s, threadId));
  const threads = useApp((s) => s.threads);
  const candidates = lineageOf(threads, threadId).filter((t) => t.id !== threadId);
  return (
    <Modal title={`Compare ${thread?.title ?? ""}`} label="compare" wide>
      {other === null ? (
        <div className="form">
          <p className="muted">Compare with another thread of its lineage:</p>
          {candidates.length === 0 && <p className="muted">It has no forks or source to compare with.</p>}
          <ul className="pick-list">
            {candidates.map((t) => (
              <li key={t.id}>
                <button
                  type="button"
                  className="button"
                  data-compare-with={t.id}
                  onClick={() => openDialog({ kind: "compare", threadId, other: t.id })}
                >
                  {t.title}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <Comparison a={threadId} b={other} />
      )}
    </Modal>
  );
}

function Comparison({ a, b }: { a: string; b: string }) {
  const titleA = useApp((s) => threadById(s, a)?.title ?? a);
  const titleB = useApp((s) => threadById(s, b)?.title ?? b);
  // `changes(x, y)` goes from y's files to x's: here from a's (left) to b's (right).
  const code = useLoad<ChangesView>(`${a}|${b}`, () => ipc.changes(b, a));
  const turns = useLoad<[ThreadDetail, ThreadDetail]>(`${a}|${b}`, () => Promise.all([ipc.show(a), ipc.show(b)]));
  return (
    <div className="form compare" data-compare={`${a}|${b}`}>
      <section>
        <h3>Code difference</h3>
        <p className="muted">
          From <strong>{titleA}</strong>'s current files to <strong>{titleB}</strong>'s.
        </p>
        {code.state === "loading" && <Spinner size={12} />}
        {code.state === "error" && (
          <p className="form__error" role="alert" data-compare-error="code">
            {code.message}
          </p>
        )}
        {code.state === "ok" && <ChangesBody files={code.value.files} />}
      </section>
      <section>
        <h3>Turns</h3>
        {turns.state === "loading" && <Spinner size={12} />}
        {turns.state === "error" && (
          <p className="form__error" role="alert">
            {turns.message}
          </p>
        )}
        {turns.state === "ok" && <SideBySide a={turns.value[0]} b={turns.value[1]} />}
      </section>
    </div>
  );
}

function TurnText({ turn }: { turn: TurnView }) {
  return (
    <div className="compare-turn" data-compare-turn={Number(turn.number)}>
      {turn.messages
        .filter((m) => m.text.trim() !== "" || m.tool)
        .map((m, i) => (
          <p key={i} className={`compare-msg compare-msg--${m.role}`}>
            <span className="compare-msg__role">{m.role === "user" ? "You" : m.tool ? m.tool.name : "Reply"}</span>
            {m.text}
          </p>
        ))}
    </div>
  );
}

export function SideBySide({ a, b }: { a: ThreadDetail; b: ThreadDetail }) {
  const sides = splitTurns(a, b);
  return (
    <div className="compare-turns">
      {sides.shared.length > 0 && (
        <details className="compare-shared" data-shared-turns={sides.shared.length}>
          <summary>
            {sides.shared.length === 1 ? "1 shared turn" : `${sides.shared.length} shared turns`}
          </summary>
          {sides.shared.map((t) => (
            <TurnText key={t.id} turn={t} />
          ))}
        </details>
      )}
      <div className="compare-columns">
        {[a, b].map((d, i) => {
          const own = i === 0 ? sides.left : sides.right;
          return (
            <div key={d.id} className="compare-column" data-compare-side={i === 0 ? "a" : "b"}>
              <h4>{d.title}</h4>
              <p className="muted compare-cost" data-compare-cost={i === 0 ? "a" : "b"} title={figureTitle(d.cost.own)}>
                {branchText(d.cost.own, d.cost.inherited) ?? "No usage recorded"}
              </p>
              {own.length === 0 ? <p className="muted">No turns after the shared ones.</p> : own.map((t) => <TurnText key={t.id} turn={t} />)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
