// The first-run view as a dialog (Help ▸ Set Up Agents…, the empty window's link, New thread
// when no agent can start): what Forkhost needs, each agent's state and next step, and the
// conversations already on this machine, which a newcomer often forks first. For a remote host
// (its "Set up agents…" in Hosts): the agents its forkhost finds, and what to run there.
import { useEffect } from "react";
import { Modal } from "../ui/Modal";
import { ModalFooter } from "../ui/ModalFooter";
import { closeDialog, loadDoctor, openDialog } from "../ui/open";
import { HarnessSetupList } from "./HarnessSetup";
import { SessionsHere } from "./SessionsHere";
import { useApp } from "../state";
import { loadHostDoctor, useRemote } from "../remote/remote";
import { usableHarnesses } from "./words";

export function FirstRunDialog() {
  const host = useApp((s) => (s.dialog?.kind === "first-run" ? s.dialog.host : undefined));
  const here = useApp((s) => s.doctor);
  const there = useRemote((s) => (host ? s.doctors[host] : undefined));
  useEffect(() => {
    void (host ? loadHostDoctor(host) : loadDoctor());
  }, [host]);
  const usable = usableHarnesses(host ? (Array.isArray(there) ? there : null) : here);
  return (
    <Modal title={host ? `Set up agents on ${host}` : "Set up agents"} label="first-run" wide>
      <div className="first-run" data-host={host}>
        <p className="first-run__lead">
          {host
            ? `The agents ${host}'s forkhost finds through its login shell's PATH. Install or sign in there, in a terminal on ${host}, then check again.`
            : "Forkhost runs the coding agents you install: Claude Code, Codex and Pi. Each one signs in with its own account or API key."}
        </p>
        <HarnessSetupList host={host} />
        {!host && <SessionsHere onOpened={closeDialog} />}
        <ModalFooter cancelLabel="Close">
          <button
            type="button"
            className="button button--primary"
            data-action="first-run-new-thread"
            disabled={usable.length === 0}
            title={usable.length === 0 ? "Install or sign in an agent first" : undefined}
            onClick={() => openDialog({ kind: "new-thread", host })}
          >
            New thread
          </button>
        </ModalFooter>
      </div>
    </Modal>
  );
}
