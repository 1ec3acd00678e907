// The sidebar's "Hosts": each remote host the user added, opened to its threads as that
// machine's forkhost lists them ("connecting…" while ssh works; "offline since 14:02 ·
// Reconnect" with ssh's words when it cannot; "Update forkhost there" when it runs another
// version). Shown only once a host exists.
import { useEffect, useState } from "react";
import { harnessName } from "../harnesses";
import { relativeTime } from "../sidebar/SessionButton";
import { ChevronIcon, RefreshIcon, Spinner } from "../ui/icons";
import { useApp } from "../state";
import { openDialog } from "../ui/open";
import { openTab } from "../tabs/tabs";
import { clock, harnessesLine, loadHostThreads, loadHosts, remoteThreadId, updateHost, useRemote } from "./remote";

export function Hosts() {
  const hosts = useRemote((s) => s.hosts);
  useEffect(() => {
    if (hosts === null) void loadHosts();
  }, [hosts]);
  useEffect(() => {
    // A host added from a terminal (`forkhost hosts add`) shows when the window is back.
    const again = () => void loadHosts();
    window.addEventListener("focus", again);
    return () => window.removeEventListener("focus", again);
  }, []);
  if (!hosts || hosts.length === 0) return null;
  return (
    <section className="hosts" aria-labelledby="hosts-heading">
      <h2 id="hosts-heading" className="threads__heading">
        Hosts
      </h2>
      <ul className="hosts__list" role="list">
        {hosts.map((h) => (
          <HostRow key={h.name} name={h.name} destination={h.destination} />
        ))}
      </ul>
    </section>
  );
}

function HostRow({ name, destination }: { name: string; destination: string }) {
  const [open, setOpen] = useState(false);
  const state = useRemote((s) => s.threads[name]);
  const harnesses = harnessesLine(useRemote((s) => s.doctors[name]));
  const active = useApp((s) => s.tabs.find((t) => t.id === s.activeTab)?.thread_id);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && (!state || state.status === "offline")) void loadHostThreads(name);
  };
  return (
    <li className="host" data-host={name} data-host-state={state?.status}>
      <div className="sessions__head">
        <button
          type="button"
          className="project__head"
          aria-expanded={open}
          data-action="toggle-host"
          title={destination}
          onClick={toggle}
        >
          <ChevronIcon className="project__chevron" width={12} height={12} />
          <span className="project__name">{name}</span>
          {state?.status === "ready" && <span className="project__count">{state.threads.length}</span>}
        </button>
        {open && state?.status === "ready" && (
          <button
            type="button"
            className="icon-button icon-button--small"
            aria-label={`Refresh ${name}`}
            title="Read its threads again"
            onClick={() => void loadHostThreads(name)}
          >
            <RefreshIcon width={12} height={12} />
          </button>
        )}
      </div>
      {open && state?.status === "connecting" && (
        <p className="host__note" data-part="connecting">
          <Spinner size={11} /> connecting…
        </p>
      )}
      {open && state?.status === "offline" && (
        <p className="host__note host__note--offline" data-part="offline" title={state.message}>
          offline since {clock(state.since)} ·{" "}
          <button type="button" className="link-button" data-action="reconnect" onClick={() => void loadHostThreads(name)}>
            Reconnect
          </button>
          {state.code === "version_mismatch" && (
            <>
              {" · "}
              <button type="button" className="link-button" data-action="update-host" onClick={() => void updateHost(name)}>
                Update forkhost there
              </button>
            </>
          )}
          <span className="host__why">{state.message}</span>
        </p>
      )}
      {open && state?.status === "ready" && (
        <ul className="sessions__list" role="list">
          {state.threads.length === 0 && <li className="sessions__empty">No threads there yet.</li>}
          {state.threads.map((t) => (
            <li key={t.id}>
              <button
                type="button"
                className="thread thread--remote"
                data-remote-thread-id={t.id}
                data-state={t.state}
                data-active={active === remoteThreadId(name, t.id)}
                title={`${t.title}\n${harnessName(t.harness)} · ${name}:${t.cwd}`}
                onClick={() => openTab(remoteThreadId(name, t.id))}
              >
                <span className={`harness-dot harness-dot--${t.harness}`} aria-hidden />
                <span className="thread__text">
                  <span className="thread__title">{t.title}</span>
                  <span className="thread__sub">
                    {harnessName(t.harness)} · {t.state} · {relativeTime(t.updated_at)}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {/* Below its threads: read after them, it never moves a row under the pointer. */}
      {open && state?.status === "ready" && harnesses && (
        <p className="host__note host__note--quiet">
          <span data-part="harnesses" title="The agents installed there">
            {harnesses}
          </span>
          {" · "}
          <button
            type="button"
            className="link-button"
            data-action="host-setup"
            onClick={() => openDialog({ kind: "first-run", host: name })}
          >
            Set up agents…
          </button>
        </p>
      )}
    </li>
  );
}
