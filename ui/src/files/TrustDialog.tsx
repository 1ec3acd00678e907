// The folder-trust question, asked once per repository root before a thread starts (or is
// imported) in a folder with project agent config. Text only.
import type { TrustAsk } from "../state";
import { Modal } from "../dialogs/Modal";
import { trustQuestion } from "./files";

export function TrustDialog({ ask }: { ask: TrustAsk }) {
  const cancel = () => ask.answer(null);
  return (
    <Modal title="Trust this folder?" label="trust" onClose={cancel}>
      <div className="form" data-trust-root={ask.view.root}>
        <p data-trust-question="true">{trustQuestion(ask.view)}</p>
        <p className="muted">
          Not trusted, the agent starts without the project's settings, hooks, MCP servers and extensions.
          Forkhost remembers the answer for this folder.
        </p>
        <footer className="form__actions">
          <button type="button" className="button" data-action="trust-cancel" onClick={cancel}>
            Cancel
          </button>
          <button type="button" className="button" data-action="trust-no" onClick={() => ask.answer(false)}>
            Don't trust
          </button>
          <button
            type="button"
            className="button button--primary"
            data-action="trust-yes"
            autoFocus
            onClick={() => ask.answer(true)}
          >
            Trust
          </button>
        </footer>
      </div>
    </Modal>
  );
}
