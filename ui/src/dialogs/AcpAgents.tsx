// Settings ▸ "Agents": the Agent Client Protocol agents (docs/architecture.md "ACP agents") —
// the ones Forkhost ships and the ones added here — each started once and asked what it can
// do. "Add an ACP agent…" keeps another by its command line; Remove forgets an added one.
// Asking starts every agent (OpenCode's binary alone is 185 MB), so it happens when the user
// asks, never merely because Settings opened.
import { type KeyboardEvent, useCallback, useState } from "react";
import type { AgentReport } from "../bindings/AgentReport";
import { describeError } from "../errors";
import * as ipc from "../ipc";

/** The agents Forkhost ships: listed always, never removed. */
const SHIPPED = new Set(["gemini", "opencode"]);

/** What an agent said it can do, in words: its version, then what Fork and history need. */
export function agentAbilities(report: AgentReport): string[] {
  const probe = report.probe;
  if (!probe) return [];
  const who = [probe.agent_name, probe.agent_version].filter(Boolean).join(" ");
  return [
    who || report.agent.product_name,
    probe.fork ? "forks at every message" : "no session/fork: continue it in Claude Code, Codex or Pi to fork",
    probe.load ? "replays its sessions" : "cannot reopen a session",
    ...(probe.list ? ["lists its sessions"] : []),
    probe.auth_methods.length > 0 ? `signs in with ${probe.auth_methods.join(", ")}` : "no sign-in",
  ];
}

export function AcpAgentsSection() {
  const [reports, setReports] = useState<AgentReport[] | null>(null);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    setAsking(true);
    try {
      setReports(await ipc.acpAgents());
    } catch (err) {
      setError(describeError(err).message);
    } finally {
      setAsking(false);
    }
  }, []);

  const add = async () => {
    if (!name.trim() || !command.trim() || busy) return;
    setBusy(true);
    try {
      await ipc.addAcpAgent(name.trim(), command.trim());
      setAdding(false);
      setName("");
      setCommand("");
      setError(null);
      await load();
    } catch (err) {
      setError(describeError(err).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = async (agent: string) => {
    try {
      await ipc.removeAcpAgent(agent);
      setError(null);
    } catch (err) {
      setError(describeError(err).message);
    }
    await load();
  };

  // The section sits in Settings' form: Enter adds the agent, never saves the settings.
  const onEnter = (e: KeyboardEvent) => {
    if (e.key === "Enter") {
      e.preventDefault();
      void add();
    }
  };

  return (
    <section className="settings-section" data-settings-section="agents">
      <div className="settings-section__head">
        <h3>Agents</h3>
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="agents-ask"
          disabled={asking}
          onClick={() => void load()}
        >
          {reports === null ? "Ask each agent" : "Check again"}
        </button>
      </div>
      <p className="settings-hint">
        Agents that speak the Agent Client Protocol (OpenCode, Gemini CLI and the ones you add): Forkhost starts each
        once to ask what it can do.
      </p>
      {error && (
        <p className="settings-hint settings-hint--warn" role="alert" data-agents-error>
          {error}
        </p>
      )}
      {asking && (
        <p className="settings-hint" data-agents-asking>
          Asking each agent…
        </p>
      )}
      {reports && reports.length > 0 && (
        <ul className="acp-agents">
          {reports.map((r) => (
            <li key={r.agent.name} data-agent={r.agent.name} data-agent-state={r.probe ? "ready" : "error"}>
              <strong>{r.agent.product_name}</strong> <code>{[r.program, ...r.agent.args].join(" ")}</code>
              {r.probe ? (
                <span className="muted" data-agent-abilities>
                  {" "}
                  {agentAbilities(r).join(" · ")}
                </span>
              ) : (
                <span className="muted" data-agent-error>
                  {" "}
                  {r.error?.message ?? "did not answer"}
                  {/* The install command, unless the error's words already give it. */}
                  {r.agent.install && !(r.error?.message ?? "").includes(r.agent.install) ? (
                    <>
                      {" "}
                      Install: <code>{r.agent.install}</code>
                    </>
                  ) : null}
                </span>
              )}
              {!SHIPPED.has(r.agent.name) && (
                <button type="button" className="button" data-action="remove-agent" onClick={() => void remove(r.agent.name)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <div className="acp-agents__add" data-agent-form>
          <label>
            Name{" "}
            <input data-field="agent-name" value={name} placeholder="qwen" onChange={(e) => setName(e.target.value)} onKeyDown={onEnter} />
          </label>
          <label>
            Command{" "}
            <input
              data-field="agent-command"
              value={command}
              placeholder="qwen --acp"
              onChange={(e) => setCommand(e.target.value)}
              onKeyDown={onEnter}
            />
          </label>
          <button
            type="button"
            className="button button--primary"
            data-action="add-agent-save"
            disabled={busy || !name.trim() || !command.trim()}
            onClick={() => void add()}
          >
            Add
          </button>
          <button type="button" className="button" onClick={() => setAdding(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className="button" data-action="add-agent" onClick={() => setAdding(true)}>
          Add an ACP agent…
        </button>
      )}
    </section>
  );
}
