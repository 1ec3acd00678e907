// The first-run view as a dialog (Help ▸ Set Up Agents…, the empty window's link, New thread
// when no agent can start): what Forkhost needs, each agent's state and next step, and the
// conversations already on this machine, which a newcomer often forks first.
import { useEffect } from "react";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { closeDialog, loadDoctor, openDialog } from "../ui/open";
import { HarnessSetupList } from "./HarnessSetup";
import { SessionsHere } from "./SessionsHere";
import { useApp } from "../state";
import { usableHarnesses } from "./words";

export function FirstRunDialog() {
  const doctor = useApp((s) => s.doctor);
  useEffect(() => {
    void loadDoctor();
  }, []);
  const usable = usableHarnesses(doctor);
  return (
    <Modal title="Set up agents" label="first-run" wide>
      <div className="first-run">
        <p className="first-run__lead">
          Forkhost runs the coding agents you install: Claude Code, Codex and Pi. Each one signs in with its own
          account or API key.
        </p>
        <HarnessSetupList />
        <SessionsHere onOpened={closeDialog} />
        <ModalFooter cancelLabel="Close">
          <button
            type="button"
            className="button button--primary"
            data-action="first-run-new-thread"
            disabled={usable.length === 0}
            title={usable.length === 0 ? "Install or sign in an agent first" : undefined}
            onClick={() => openDialog({ kind: "new-thread" })}
          >
            New thread
          </button>
        </ModalFooter>
      </div>
    </Modal>
  );
}
