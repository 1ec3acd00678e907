import { useEffect, useLayoutEffect, useRef } from "react";
import { sendPrompt, setDraft, stopTurn } from "../threads/turns";
import { SendIcon, Spinner, StopIcon } from "../ui/icons";
import type { LiveTurn } from "../state";
import { harnessName } from "../harnesses";
import { useApp } from "../state";
import { answerApproval, enterMayApprove } from "../threads/approvals";

export interface ComposerProps {
  threadId: string;
  harness: string;
  threadState: string;
  live: LiveTurn | undefined;
  /** A terminal tab holds the session: the composer waits. */
  terminalOpen: boolean;
  /** Focus requests: a composer takes the keyboard when this grows past the last one handled. */
  focusSignal: number;
  autoFocus: boolean;
}

/** The last focus request a composer acted on (shared: only one composer shows at a time). */
let handledFocus = 0;

/** The prompt box: Enter sends, Shift+Enter is a newline, Stop interrupts. */
export function Composer(props: ComposerProps) {
  const { threadId, harness, live, terminalOpen, focusSignal, autoFocus, threadState } = props;
  const draft = useApp((s) => s.drafts[threadId] ?? "");
  const preparing = useApp((s) => Boolean(s.preparing[threadId]));
  const first = useApp((s) => s.approvals[threadId]?.[0]);
  const waitingOn = first?.id;
  // A question is answered in its card, never by the composer's Enter.
  const asks = first?.subject.kind === "question";
  const approvable = waitingOn !== undefined && !asks;
  const ref = useRef<HTMLTextAreaElement>(null);
  const running = Boolean(live && live.phase !== "ended");
  const unusable = threadState === "missing" || threadState === "archived";
  const blocked = terminalOpen || unusable;
  const canSend = !running && !blocked && draft.trim().length > 0;

  // Grow with the text, up to a limit (then it scrolls); again when the width changes (a
  // window that was hidden while it rendered has none at first).
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = () => {
      if (el.clientWidth === 0) return;
      el.style.height = "auto";
      el.style.height = `${Math.min(el.scrollHeight, 260)}px`;
    };
    fit();
    let width = el.clientWidth;
    const observer = new ResizeObserver(() => {
      if (el.clientWidth !== width) {
        width = el.clientWidth;
        fit();
      }
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [draft]);

  useEffect(() => {
    if (focusSignal <= handledFocus && !autoFocus) return;
    handledFocus = Math.max(handledFocus, focusSignal);
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, [focusSignal, autoFocus]);

  const submit = () => {
    if (!canSend) return;
    void sendPrompt(threadId, draft);
  };

  let state: { tone: string; text: string };
  if (terminalOpen) state = { tone: "muted", text: "The terminal tab has this session" };
  else if (threadState === "missing") state = { tone: "error", text: "Native session missing" };
  else if (threadState === "archived") state = { tone: "muted", text: "Archived" };
  else if (asks) state = { tone: "warn", text: "Waiting for your answer" };
  else if (waitingOn) state = { tone: "warn", text: "Waiting for your approval" };
  else if (live?.phase === "starting" && preparing) state = { tone: "busy", text: "Waiting for the fork's files · sends when they are there" };
  else if (live?.phase === "starting") state = { tone: "busy", text: `Starting ${harnessName(harness)}…` };
  else if (live?.phase === "streaming") state = { tone: "busy", text: "Streaming" };
  else if (live?.outcome === "failed") state = { tone: "error", text: "Last turn failed" };
  else if (live?.outcome === "interrupted") state = { tone: "warn", text: "Interrupted" };
  else if (threadState === "pending") state = { tone: "ready", text: "Ready · session starts with the next prompt" };
  else state = { tone: "ready", text: "Ready" };

  const placeholder = terminalOpen
    ? "Close the terminal tab to continue here"
    : `Message ${harnessName(harness)}…`;

  return (
    <div className="composer" data-state={running ? "running" : "idle"}>
      <div className="composer__box">
        <textarea
          ref={ref}
          className="composer__input"
          data-role="composer"
          aria-label={`Message ${harnessName(harness)}`}
          placeholder={placeholder}
          rows={1}
          value={draft}
          disabled={blocked}
          autoFocus={autoFocus}
          onChange={(e) => setDraft(threadId, e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              // An empty composer's Enter approves the oldest waiting request.
              if (approvable && draft.trim().length === 0) {
                // Not a card that appeared a moment ago (a double Enter after Send).
                if (waitingOn !== undefined && enterMayApprove(waitingOn)) void answerApproval(threadId, waitingOn, "approve");
              }
              else submit();
            } else if (e.key === "Escape" && running) {
              e.preventDefault();
              void stopTurn(threadId);
            }
          }}
        />
        <div className="composer__bar">
          <span className={`composer__state composer__state--${state.tone}`} data-runtime-state={state.tone}>
            {state.tone === "busy" ? <Spinner size={11} /> : <span className="composer__dot" />}
            {state.text}
          </span>
          <span className="composer__hint">
            <kbd>Enter</kbd> {approvable && draft.trim().length === 0 ? "to approve" : "to send"} ·{" "}
            <kbd>Shift</kbd>+<kbd>Enter</kbd> new line
          </span>
          {running && (
            <button
              type="button"
              className="button button--small button--danger"
              data-action="stop"
              onClick={() => void stopTurn(threadId)}
              title="Stop (Esc, Ctrl+.)"
            >
              <StopIcon width={12} height={12} />
              Stop
            </button>
          )}
          <button
            type="button"
            className="button button--small button--primary composer__send"
            data-action="send"
            aria-label="Send"
            disabled={!canSend}
            onClick={submit}
            title="Send (Enter)"
          >
            <SendIcon width={14} height={14} />
            Send
          </button>
        </div>
      </div>
    </div>
  );
}
