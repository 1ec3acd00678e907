// The frame every dialog shares: a titled box over a backdrop; Escape, the close button or a
// click on the backdrop closes it.
import { useEffect, useRef, type ReactNode } from "react";
import { CloseIcon } from "./icons";
import { closeDialog } from "./open";

export function Modal(props: {
  title: string;
  label: string;
  children: ReactNode;
  wide?: boolean;
  /** What closing does (Escape, the close button, the backdrop); default: close the dialog. */
  onClose?: () => void;
}) {
  const close = props.onClose ?? closeDialog;
  const backdrop = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Only the topmost dialog closes (the trust question shows over New thread).
      const all = document.querySelectorAll(".modal-backdrop");
      if (backdrop.current && all.length > 0 && all[all.length - 1] !== backdrop.current) return;
      if (e.key === "Escape") {
        e.stopPropagation();
        close();
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [close]);
  return (
    <div ref={backdrop} className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className={`modal${props.wide ? " modal--wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.label}
        data-dialog={props.label}
      >
        <header className="modal__head">
          <h2>{props.title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={close}>
            <CloseIcon />
          </button>
        </header>
        {props.children}
      </div>
    </div>
  );
}
