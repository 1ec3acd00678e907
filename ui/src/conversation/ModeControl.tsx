// The thread's permission mode in the conversation header, changeable there: the same choice as
// New thread, applied from the harness's next start. While a turn runs the Host refuses (busy)
// and a toast says so; the header always shows the stored mode (it updates on thread_changed).
import { useState } from "react";
import type { ThreadView } from "../bindings/ThreadView";
import { ModePicker, modeNote } from "../dialogs/ModePicker";
import { explain } from "../permissions";
import { useApp } from "../state";
import { setThreadMode } from "../threads/threadActions";

/** `folded`: the header has no room for Pi's note (a sentence, not a choice): it shows in "+N". */
export function ModeControl({ thread, folded = false }: { thread: ThreadView; folded?: boolean }) {
  const report = useApp((s) => s.doctor?.find((r) => r.name === thread.harness));
  const [busy, setBusy] = useState(false);
  const { mode, sandbox: shown } = thread.permissions;
  // A sandbox named as the harness's default is the one it runs in, not a choice.
  const sandbox = thread.permissions.sandbox_default ? null : shown;
  const title = [
    mode !== null || thread.harness !== "pi" ? `Mode: ${mode ?? "default"} — ${explain(thread.harness, mode)}` : "",
    shown !== null
      ? `Sandbox: ${shown}${thread.permissions.sandbox_default ? ", config.toml's default" : ""} — ${explain(thread.harness, shown)}`
      : "",
    "Changes apply from the harness's next start.",
  ]
    .filter(Boolean)
    .join("\n");
  return (
    <div
      className={`mode-control${folded ? " conv-head__folded" : ""}`}
      data-mode-control={thread.id}
      data-header-chip={modeNote(thread.harness, report) === null ? undefined : "mode"}
      data-mode={mode ?? ""}
      data-sandbox={sandbox ?? ""}
      aria-busy={busy || undefined}
      title={title}
    >
      <ModePicker
        compact
        harness={thread.harness}
        report={report}
        value={{ mode, sandbox }}
        disabled={busy}
        onChange={(next) => {
          setBusy(true);
          void setThreadMode(thread.id, next.mode, next.sandbox).finally(() => setBusy(false));
        }}
      />
    </div>
  );
}
