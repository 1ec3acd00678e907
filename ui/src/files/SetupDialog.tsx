// The setup command of a thread's repository: a command each new worktree Forkhost makes for a
// fork of that repository runs once, in the worktree (e.g. `npm install`), its output shown in
// the fork's window. One per repository, shared by its worktrees; blank: none.
import { useEffect, useState } from "react";
import { Modal } from "../ui/Modal";
import { closeDialog } from "../ui/open";
import { describeError } from "../errors";
import * as ipc from "../ipc";
import { threadById, useApp } from "../state";

export function SetupDialog({ threadId }: { threadId: string }) {
  const folder = useApp((s) => threadById(s, threadId)?.cwd ?? "");
  const [command, setCommand] = useState("");
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    ipc.setupCommand(folder).then(
      (current) => {
        if (!live) return;
        setCommand(current ?? "");
        setLoaded(true);
      },
      (err: unknown) => {
        if (!live) return;
        setError(describeError(err).message);
        setLoaded(true);
      },
    );
    return () => {
      live = false;
    };
  }, [folder]);

  const save = async (value: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await ipc.setSetupCommand(folder, value);
      closeDialog();
    } catch (err) {
      setError(describeError(err).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Setup command for new worktrees" label="setup-command">
      <form
        className="form"
        data-setup-of={threadId}
        onSubmit={(e) => {
          e.preventDefault();
          void save(command);
        }}
      >
        <p>
          Each new worktree of the repository holding <code>{folder}</code> runs this once, in the worktree, when a
          fork is made there (for example <code>npm install</code>). Its output shows in the fork&apos;s window.
        </p>
        <label className="field">
          <span className="field__label">Command</span>
          <input
            className="input"
            name="setup-command"
            data-field="setup-command"
            placeholder="none"
            value={command}
            spellCheck={false}
            disabled={!loaded || busy}
            onChange={(e) => setCommand(e.target.value)}
          />
        </label>
        {error && (
          <p className="form__error" role="alert" data-setup-error="true">
            {error}
          </p>
        )}
        <div className="form__actions">
          <button type="button" className="button" data-action="setup-clear" disabled={!loaded || busy} onClick={() => void save(null)}>
            No setup command
          </button>
          <button type="submit" className="button button--primary" data-action="setup-save" disabled={!loaded || busy}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}
