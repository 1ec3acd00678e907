// "Continue on another machine…": which host, which folder there, whether the files as of the
// message come along (a git bundle of what that machine's clone lacks, into a new worktree of
// it, or a new repository in an empty folder), and the answer for that folder's agent config.
// The branch becomes a native session there; the source stays as it is.
import { useEffect, useState } from "react";
import { describeError } from "../errors";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { threadById, useApp } from "../state";
import {
  type ContinueAsk,
  closeContinueDialog,
  continueOnHost,
  continuePoint,
  hostOf,
  loadHosts,
  useRemote,
} from "./remote";

export function ContinueDialog() {
  const ask = useRemote((s) => s.ask);
  if (!ask) return null;
  return <ContinueForm key={`${ask.threadId}|${ask.turn}|${ask.role}`} ask={ask} />;
}

function ContinueForm({ ask }: { ask: ContinueAsk }) {
  const hosts = useRemote((s) => s.hosts);
  const source = useApp((s) => threadById(s, ask.threadId));
  const [host, setHost] = useState("");
  const [cwd, setCwd] = useState("");
  const [files, setFiles] = useState(true);
  const [trust, setTrust] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (hosts === null) void loadHosts();
  }, [hosts]);
  // A remote thread may also come back to this machine.
  const from = hostOf(ask.threadId);
  const targets = [
    ...(from ? [{ name: "local", destination: "this machine" }] : []),
    ...(hosts ?? []).filter((h) => h.name !== from),
  ];
  const chosen = host || targets[0]?.name || "";
  const where = ask.role === "user" ? `before turn ${ask.turn}` : `after turn ${ask.turn}`;
  const canStart = !busy && chosen !== "" && cwd.trim() !== "";

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await continueOnHost({
        thread_id: ask.threadId,
        at: continuePoint(ask),
        host: chosen,
        cwd: cwd.trim(),
        files,
        trust: trust ? true : null,
        into: null,
      });
      closeContinueDialog();
    } catch (err) {
      const words = describeError(err);
      setError(words.message ? `${words.title}: ${words.message}` : words.title);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Continue on another machine" label="Continue on another machine" onClose={closeContinueDialog}>
      <form
        className="continue-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (canStart) void submit();
        }}
      >
        <p className="muted">
          {source ? `“${source.title}”, ` : ""}
          {where}, as a new session on that machine. This thread stays as it is.
        </p>
        {hosts !== null && targets.length === 0 && (
          <p className="continue-dialog__none" data-part="no-hosts">
            No remote hosts yet. Add one from a terminal: <code>forkhost hosts add NAME user@host</code>
          </p>
        )}
        <label className="continue-dialog__row">
          <span>Host</span>
          <select name="host" value={chosen} onChange={(e) => setHost(e.target.value)} disabled={!targets.length}>
            {targets.map((h) => (
              <option key={h.name} value={h.name} title={h.destination}>
                {h.name} ({h.destination})
              </option>
            ))}
          </select>
        </label>
        <label className="continue-dialog__row">
          <span>Folder there</span>
          <input
            name="remote-cwd"
            placeholder="/home/you/src/project"
            value={cwd}
            onChange={(e) => setCwd(e.target.value)}
            autoFocus
          />
        </label>
        <label className="continue-dialog__check">
          <input type="checkbox" name="bring-files" checked={files} onChange={(e) => setFiles(e.target.checked)} />
          <span>
            Bring the files as of this message: into a new worktree when the folder is a clone of this repository
            (only what it lacks is sent), or a new repository when the folder is empty or new
          </span>
        </label>
        <label className="continue-dialog__check">
          <input type="checkbox" name="trust-folder" checked={trust} onChange={(e) => setTrust(e.target.checked)} />
          <span>Trust that folder's project agent config (hooks, MCP servers) to run there</span>
        </label>
        {error && (
          <p className="continue-dialog__error" role="alert" data-part="continue-error">
            {error}
          </p>
        )}
        <ModalFooter onCancel={closeContinueDialog} busy={busy}>
          <button type="submit" className="button button--primary" name="continue-on-host" disabled={!canStart}>
            {busy ? "Continuing…" : `Continue on ${chosen || "host"}`}
          </button>
        </ModalFooter>
      </form>
    </Modal>
  );
}
