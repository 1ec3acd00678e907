// What a tab and a sidebar row say about a thread beyond its title: where a fork was cut and
// from which thread ("Fork of ‹source› after turn 2", "Continued in Codex from ‹source›, after
// turn 2"). A fork's title is its own first prompt once sent, else its cut, numbered among
// equal siblings ("after turn 2 · 2"): the Host names it (crates/core/src/titles.rs).

import type { ThreadView } from "../bindings/ThreadView";
import { harnessName } from "../harnesses";

/** Where a fork was cut: "after turn 2", "before turn 2", "before its first turn", or "". */
export function forkWhere(fork: NonNullable<ThreadView["fork"]>): string {
  const before = fork.boundary === "before";
  if (fork.source_turn_number !== null) return `${before ? "before" : "after"} turn ${fork.source_turn_number}`;
  if (fork.source_turn === null && before) return "before its first turn";
  return "";
}

/**
 * The lineage in words; `null` for a thread that is no fork. `sourceTitle`: the source's title
 * where this window knows it (a source that is gone is "a thread that is gone").
 */
export function lineageWords(thread: ThreadView, sourceTitle: string | undefined): string | null {
  const fork = thread.fork;
  if (!fork) return null;
  const source = sourceTitle ?? "a thread that is gone";
  const where = forkWhere(fork);
  const crossed = fork.source_harness !== null && fork.source_harness !== thread.harness;
  if (crossed) return `Continued in ${harnessName(thread.harness)} from ${source}${where ? `, ${where}` : ""}`;
  return `Fork of ${source}${where ? ` ${where}` : ""}`;
}

/** A tab's tooltip: its title, its harness, and its lineage on a line of its own. */
export function tabTooltip(thread: ThreadView, sourceTitle: string | undefined, terminal: boolean): string {
  const head = `${thread.title} — ${harnessName(thread.harness)}${terminal ? " (terminal)" : ""}`;
  const lineage = lineageWords(thread, sourceTitle);
  return lineage ? `${head}\n${lineage}` : head;
}
