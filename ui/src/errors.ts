// Typed command errors in words a user can act on.
import type { CommandErrorCode } from "./bindings/CommandErrorCode";
import { IpcError } from "./ipc";

/** A title for every code Rust has (its `ErrorCode` and the app's `AppErrorCode`): a code added
 * or renamed there fails the type check here. */
const TITLES: Record<CommandErrorCode, string> = {
  thread_not_found: "Thread not found",
  session_not_found: "The native session is gone",
  turn_not_found: "That turn doesn't exist (anymore)",
  checkpoint_not_found: "The harness's session no longer has that point",
  unsupported: "Not supported by this harness",
  busy: "Busy",
  conflict: "The thread changed meanwhile",
  harness_not_found: "Harness not installed",
  harness_failed: "The harness failed",
  invalid_input: "Invalid input",
  host_unreachable: "The remote host can't be reached",
  host_key_unknown: "Unknown host key",
  host_key_changed: "The host's key changed",
  version_mismatch: "Forkhost versions differ",
  internal: "Something went wrong",
  window: "Window error",
  terminal: "Terminal error",
  settings: "Settings not saved",
  cli_tool: "Command-line tool error",
  update: "Update error",
};

const HINTS: Partial<Record<CommandErrorCode, string>> = {
  busy: "Wait for the running turn to finish, or stop it.",
  host_key_unknown: "Check the fingerprint, then add the key to known_hosts (ssh the host once).",
  host_key_changed: "The host may be an impostor; fix known_hosts only if you know why it changed.",
  conflict: "Try again.",
  harness_not_found: "Install it, or set its path in Settings.",
  session_not_found: "Its file was moved or deleted outside Forkhost.",
};

export interface ErrorWords {
  code: CommandErrorCode;
  title: string;
  message: string;
}

/** Strips the Host's own "code: " prefix ("busy: a turn is running" → "a turn is running"). */
function stripPrefix(message: string): string {
  const m = /^(?:[a-z ]+): (.*)$/s.exec(message);
  return m?.[1] && m[1].length > 0 ? m[1] : message;
}

export function describeError(err: unknown): ErrorWords {
  const code: CommandErrorCode = err instanceof IpcError ? err.code : "internal";
  const raw = err instanceof Error ? err.message : String(err);
  const detail = code === "internal" ? raw : stripPrefix(raw);
  const hint = HINTS[code];
  const sentence = detail.charAt(0).toUpperCase() + detail.slice(1);
  return {
    code,
    title: TITLES[code],
    message: hint ? `${sentence}. ${hint}`.replace(/\.\. /, ". ") : sentence,
  };
}
