// The conversation's header: the thread's title, harness and state, its folder and files, the
// controls that act on the thread (Undo rewind, session rules, permission mode, Terminal), and
// under them the lineage line and the folder's bars.
import type { ThreadView } from "../bindings/ThreadView";
import { FolderBar, FolderChip } from "../files/FolderChip";
import { harnessName } from "../harnesses";
import { UndoRewind } from "../rewind/UndoRewind";
import { openTab } from "../tabs/tabs";
import { TerminalIcon } from "../ui/icons";
import { GrantsControl } from "./GrantsControl";
import { LineageLine } from "./LineageLine";
import { ModeControl } from "./ModeControl";

/** A folder as the header shows it: the home folder as `~`, a long path by its end. */
export function shortPath(path: string): string {
  const home = /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(\/|$)/.exec(path);
  const p = home ? `~${path.slice(home[1]?.length ?? 0)}` : path;
  return p.length > 48 ? `…${p.slice(-47)}` : p;
}

export function ConversationHeader({ thread, terminalOpen }: { thread: ThreadView; terminalOpen: boolean }) {
  return (
    <header className="conv-head">
      <div className="conv-head__row">
        <span className={`harness-dot harness-dot--${thread.harness}`} aria-hidden />
        <h1 className="conv-head__title" title={thread.title}>
          {thread.title}
        </h1>
        <span className="badge">{harnessName(thread.harness)}</span>
        {thread.state !== "ready" && (
          <span className={`badge badge--state badge--${thread.state}`} title={stateHint(thread.state)}>
            {thread.state}
          </span>
        )}
        <span className="conv-head__cwd" title={thread.cwd}>
          {shortPath(thread.cwd)}
        </span>
        <FolderChip thread={thread} />
        <span className="conv-head__spacer" />
        <UndoRewind threadId={thread.id} />
        <GrantsControl threadId={thread.id} />
        <ModeControl thread={thread} />
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="open-terminal"
          onClick={() => openTab(thread.id, "terminal")}
          title={terminalOpen ? "Show the terminal tab" : "Open the harness's own TUI on this session (Ctrl+Shift+T)"}
        >
          <TerminalIcon width={14} height={14} />
          Terminal
        </button>
      </div>
      {thread.fork && <LineageLine fork={thread.fork} harness={thread.harness} />}
      <FolderBar thread={thread} />
    </header>
  );
}

function stateHint(state: string) {
  switch (state) {
    case "pending":
      return "The native session is created with the next prompt";
    case "missing":
      return "The native session's file is gone";
    case "archived":
      return "Archived";
    default:
      return state;
  }
}
