// The folder-trust question, asked once per repository root before a thread starts (or is
// imported) in a folder with project agent config. Text only.
import type { TrustAsk } from "../state";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { trustQuestion } from "./files";

export function TrustDialog({ ask }: { ask: TrustAsk }) {
  const cancel = () => ask.answer(null);
  return (
    <Modal title="Trust this folder?" label="trust" onClose={cancel}>
      <div className="form" data-trust-root={ask.view.root}>
        <p data-trust-question="true">{trustQuestion(ask.view)}</p>
        <ul className="muted" data-trust-choices="true">
          <li>
            <strong>Trusted</strong>: the agent loads the project's settings, hooks, MCP servers and extensions,
            here and in the folders above it.
          </li>
          <li>
            <strong>Not trusted</strong>: Claude Code starts without the project's settings, hooks and MCP
            servers, but keeps its permission deny and ask rules (its sandbox settings and guard hooks are
            dropped too). Pi starts without its project files. Codex starts with the project's MCP servers
            off; Codex cannot be held back from its other project settings (sandbox, approvals, hooks,
            rules), so where a project sets those Codex is not started untrusted and says why.
          </li>
        </ul>
        <p className="muted">
          Forkhost remembers the answer for this folder and asks again when new config appears. Settings →
          Trusted folders lists and revokes answers.
        </p>
        <ModalFooter onCancel={cancel} cancelAction="trust-cancel">
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
        </ModalFooter>
      </div>
    </Modal>
  );
}
