import { useEffect, useRef, useState } from "react";
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import "@xterm/xterm/css/xterm.css";
import { closeTab } from "./tabs/tabs";
import type { TabView } from "./bindings/TabView";
import { describeError } from "./errors";
import { AlertIcon, Spinner, TerminalIcon } from "./ui/icons";
import * as ipc from "./ipc";
import { harnessName } from "./harnesses";
import { openTerminalLink, terminalLinkHandler } from "./navigation";
import { threadById, useApp } from "./state";

type Status =
  | { kind: "starting" }
  | { kind: "running" }
  | { kind: "exited"; code: number | null }
  | { kind: "error"; title: string; message: string };

/** A terminal tab: the harness's own TUI on the thread's native session (xterm.js over a PTY). */
export function TerminalView({ tab, active }: { tab: TabView; active: boolean }) {
  const thread = useApp((s) => threadById(s, tab.thread_id));
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<{ term: Terminal; fit: FitAddon; id: string | null } | null>(null);
  const [status, setStatus] = useState<Status>({ kind: "starting" });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    let disposed = false;
    const term = new Terminal({
      fontFamily: '"JetBrains Mono", "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace',
      fontSize: 13,
      lineHeight: 1.2,
      cursorBlink: true,
      scrollback: 5000,
      theme: {
        background: "#111114",
        foreground: "#e6e6ea",
        cursor: "#a5a6ff",
        selectionBackground: "rgba(129,140,248,0.35)",
      },
      // OSC 8 hyperlinks; xterm's default would window.open them inside the app.
      linkHandler: terminalLinkHandler,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    // Plain URLs the harness prints.
    term.loadAddon(new WebLinksAddon(openTerminalLink));
    term.open(host);
    try {
      fit.fit();
    } catch {
      // Hidden (0×0): fitted when shown.
    }
    const state: { term: Terminal; fit: FitAddon; id: string | null } = { term, fit, id: null };
    termRef.current = state;
    // Output can arrive before terminal_open returns the id: keep it until then.
    const early = new Map<string, string[]>();
    const unlisten: (() => void)[] = [];
    void ipc
      .onTerminalOutput((out) => {
        if (state.id === out.id) term.write(out.data);
        else if (state.id === null) early.set(out.id, [...(early.get(out.id) ?? []), out.data]);
      })
      .then((u) => (disposed ? u() : unlisten.push(u)));
    void ipc
      .onTerminalExit((exit) => {
        if (exit.id !== state.id) return;
        state.id = null;
        setStatus({ kind: "exited", code: exit.code });
      })
      .then((u) => (disposed ? u() : unlisten.push(u)));
    const input = term.onData((data) => {
      if (state.id) void ipc.terminalWrite(state.id, data).catch(() => {});
    });

    setStatus({ kind: "starting" });
    ipc.terminalOpen(tab.thread_id, term.cols, term.rows).then(
      (id) => {
        if (disposed) {
          void ipc.terminalClose(id);
          return;
        }
        state.id = id;
        for (const chunk of early.get(id) ?? []) term.write(chunk);
        early.clear();
        setStatus({ kind: "running" });
        term.focus();
      },
      (err: unknown) => {
        if (disposed) return;
        const words = describeError(err);
        setStatus({ kind: "error", title: words.title, message: words.message });
      },
    );

    const observer = new ResizeObserver(() => {
      if (host.clientWidth === 0 || host.clientHeight === 0) return;
      try {
        fit.fit();
      } catch {
        return;
      }
      if (state.id) void ipc.terminalResize(state.id, term.cols, term.rows).catch(() => {});
    });
    observer.observe(host);

    return () => {
      disposed = true;
      observer.disconnect();
      input.dispose();
      for (const u of unlisten) u();
      if (state.id) void ipc.terminalClose(state.id).catch(() => {});
      term.dispose();
      termRef.current = null;
    };
  }, [tab.thread_id, generation]);

  useEffect(() => {
    if (active) termRef.current?.term.focus();
  }, [active]);

  const name = thread ? harnessName(thread.harness) : "the harness";
  return (
    <section className="term" data-terminal-thread={tab.thread_id} data-terminal-state={status.kind}>
      <header className="term__head">
        <TerminalIcon width={14} height={14} />
        <span className="term__title">
          {name} TUI · {thread?.title ?? ""}
        </span>
        <span className="term__hint">
          What it writes shows in the conversation tab through live sync.
        </span>
        {status.kind === "starting" && <Spinner size={12} />}
      </header>
      <div className="term__screen" ref={hostRef} />
      {(status.kind === "error" || status.kind === "exited") && (
        <div className="term__overlay" role={status.kind === "error" ? "alert" : "status"}>
          <div className="term__card">
            {status.kind === "error" ? <AlertIcon width={20} height={20} /> : <TerminalIcon width={20} height={20} />}
            <strong>{status.kind === "error" ? `Can't open the terminal: ${status.title}` : `${name} exited`}</strong>
            <p>
              {status.kind === "error"
                ? status.message
                : `Exit code ${status.code ?? "unknown"}. The session is back with the conversation tab.`}
            </p>
            <div className="term__actions">
              <button type="button" className="button" onClick={() => closeTab(tab.id)}>
                Close tab
              </button>
              <button
                type="button"
                className="button button--primary"
                onClick={() => setGeneration((g) => g + 1)}
              >
                {status.kind === "error" ? "Try again" : "Start again"}
              </button>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
