// Conversations the agents already keep on this machine (discovery, the sidebar's "On this
// machine"): the first-run view offers the latest few to open, since a newcomer's first fork is
// often of a conversation they had in a terminal.
import { useEffect } from "react";
import { harnessName } from "../harnesses";
import { SessionButton } from "../sidebar/SessionButton";
import { useApp } from "../state";
import { loadDiscovered } from "../threads/threadActions";

const SHOWN = 5;

export function SessionsHere({ onOpened }: { onOpened?: () => void }) {
  const discovered = useApp((s) => s.discovered);
  useEffect(() => {
    if (discovered === null) void loadDiscovered();
  }, [discovered]);
  const fresh = (discovered ?? []).filter((d) => d.thread_id === null).sort((a, b) => b.modified - a.modified);
  if (fresh.length === 0) return null;
  const counts = new Map<string, number>();
  for (const d of fresh) counts.set(d.harness, (counts.get(d.harness) ?? 0) + 1);
  const summary = [...counts].map(([h, n]) => `${n} from ${harnessName(h)}`).join(", ");
  return (
    <section className="first-run__sessions" data-first-run-sessions aria-labelledby="first-run-sessions">
      <h3 id="first-run-sessions">Conversations already on this machine</h3>
      <p className="settings-hint">
        {summary}. Open one to read it and fork it from any message; all of them are under On this machine in the
        sidebar.
      </p>
      <ul className="first-run__session-list" role="list">
        {fresh.slice(0, SHOWN).map((d) => (
          <li key={`${d.harness}:${d.session_id}`}>
            <SessionButton session={d} title={d.path} onOpened={onOpened} />
          </li>
        ))}
      </ul>
    </section>
  );
}
