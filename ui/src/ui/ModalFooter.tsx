// The row of buttons that ends a dialog: Cancel (or Close) first, then the dialog's own
// buttons, the primary one last. Seven dialogs wrote the same footer by hand; the
// Update and Setup dialogs, whose buttons differ, still do.
import type { ReactNode } from "react";
import { closeDialog } from "./open";

export function ModalFooter(props: {
  /** The dialog's own buttons, after Cancel. */
  children?: ReactNode;
  /** What Cancel does; default: close the dialog. */
  onCancel?: () => void;
  /** "Cancel" unless the dialog has nothing to cancel ("Close"). */
  cancelLabel?: string;
  /** The Cancel button's `data-action`, where the end-to-end tests name it. */
  cancelAction?: string;
  /** Cancel is off while the dialog's action runs. */
  busy?: boolean;
  /** A line before the buttons (why the primary one is off). */
  note?: ReactNode;
}) {
  return (
    <footer className="form__actions">
      {props.note}
      <button
        type="button"
        className="button"
        data-action={props.cancelAction}
        onClick={props.onCancel ?? closeDialog}
        disabled={props.busy}
      >
        {props.cancelLabel ?? "Cancel"}
      </button>
      {props.children}
    </footer>
  );
}
