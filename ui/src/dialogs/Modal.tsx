// The frame every dialog shares: a titled box over a backdrop; Escape, the close button or a
// click on the backdrop closes it.
import { useEffect, type ReactNode } from "react";
import { CloseIcon } from "../icons";
import { closeDialog } from "./open";

export function Modal(props: { title: string; label: string; children: ReactNode; wide?: boolean }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        closeDialog();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && closeDialog()}>
      <div
        className={`modal${props.wide ? " modal--wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.label}
        data-dialog={props.label}
      >
        <header className="modal__head">
          <h2>{props.title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={closeDialog}>
            <CloseIcon />
          </button>
        </header>
        {props.children}
      </div>
    </div>
  );
}
