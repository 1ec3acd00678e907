// "2 rules for this session" in the conversation header: what "Always this session" has allowed
// in this thread, each exactly as its card showed it, with Revoke. Hidden while there are none.
import { useEffect, useRef, useState } from "react";
import type { GrantView } from "../bindings/GrantView";
import { useApp } from "../state";
import { refreshGrants, revokeGrant } from "../threads/grants";
import { visibleText } from "../messages/visible";

const NONE: GrantView[] = [];

/** "1 rule" / "3 rules" for this session. */
export function grantsLabel(count: number): string {
  return `${count} ${count === 1 ? "rule" : "rules"} for this session`;
}

export function GrantsControl({ threadId }: { threadId: string }) {
  const grants = useApp((s) => s.grants[threadId] ?? NONE);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void refreshGrants(threadId);
  }, [threadId]);

  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("mousedown", away);
    window.addEventListener("keydown", escape);
    return () => {
      window.removeEventListener("mousedown", away);
      window.removeEventListener("keydown", escape);
    };
  }, [open]);

  if (grants.length === 0) return null;
  return (
    <div className="grants-control" ref={root} data-grants-control={threadId} data-grants={grants.length}>
      <button
        type="button"
        className="button button--ghost button--small"
        aria-expanded={open}
        data-action="show-grants"
        title="What “Always this session” allowed in this thread"
        onClick={() => setOpen((o) => !o)}
      >
        {grantsLabel(grants.length)}
      </button>
      {open && (
        <div className="grants-control__list" role="dialog" aria-label="Session rules">
          <p className="grants-control__note">
            Each runs without asking again in this thread, exactly as shown. Forks do not inherit them.
          </p>
          <ul>
            {grants.map((g) => (
              <li key={g.id} data-grant-id={g.id}>
                <code>{visibleText(g.words)}</code>
                <button
                  type="button"
                  className="button button--small"
                  data-action="revoke-grant"
                  disabled={busy !== null}
                  onClick={() => {
                    setBusy(g.id);
                    void revokeGrant(threadId, g.id).finally(() => setBusy(null));
                  }}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
