// The conversation header's line under a fork's title: where it was forked from, a jump there;
// for a thread continued from another machine, that machine's thread it came from.
import { remoteThreadId, remoteTitle, useRemote } from "../remote/remote";
import type { BranchOrigin } from "../bindings/BranchOrigin";
import { useEffect, useState } from "react";
import type { ForkView } from "../bindings/ForkView";
import type { HarnessKind } from "../bindings/HarnessKind";
import { reveal, sourceTurnNumber } from "../fork/reveal";
import { harnessName } from "../harnesses";
import { threadById, useApp } from "../state";
import { openTab } from "../tabs/tabs";
import { ArrowUpRightIcon, ForkIcon } from "../ui/icons";

/**
 * The number of a fork's source turn. Read after the fork's own list has painted, and not kept:
 * only the number is needed (unless this window shows the source anyway).
 */
function useSourceTurn(sourceId: string, turnId: string | null): number | null | "gone" {
  const shown = useApp((s) => s.slots[sourceId]?.detail);
  const [n, setN] = useState<number | null | "gone">(null);
  useEffect(() => {
    if (turnId === null) return;
    if (shown) {
      const t = shown.turns.find((x) => x.id === turnId);
      // State, not derived from `shown`: the number must stay when the source's detail goes
      // (its tab closed) while the read below runs.
      // eslint-disable-next-line react-hooks/set-state-in-effect -- kept across `shown` going away
      setN(t ? Number(t.number) : null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      void sourceTurnNumber(sourceId, turnId).then(
        (num) => live && setN(num),
        () => live && setN("gone"),
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [sourceId, turnId, shown]);
  return n;
}

/**
 * "Forked from ‹title› after turn N" ("Continued in Codex from …" when the fork runs in
 * another harness than its source): jumps to the source message.
 */
export function LineageLine({ fork, harness }: { fork: ForkView; harness: HarnessKind }) {
  const source = useApp((s) => threadById(s, fork.source_thread));
  // The harness recorded with the lineage, else (older forks) the source's own.
  const sourceHarness = fork.source_harness ?? source?.harness;
  const crossed = sourceHarness !== undefined && sourceHarness !== harness;
  const n = useSourceTurn(fork.source_thread, fork.source_turn);
  const sourceError = n === "gone";
  const before = fork.boundary === "before";
  const where =
    n === null || n === "gone"
      ? fork.source_turn === null
        ? before
          ? "before its first turn"
          : ""
        : "…"
      : `${before ? "before" : "after"} turn ${n}`;
  // A remote fork's source, not open here, is named from its host's list.
  const listed = useRemote((s) => remoteTitle(s, fork.source_thread));
  const title = source?.title ?? listed ?? (sourceError ? "a thread that is gone" : "…");
  return (
    <button
      type="button"
      className="lineage"
      data-action="jump-to-source"
      data-source-thread={fork.source_thread}
      disabled={Boolean(sourceError)}
      onClick={async () => {
        const num =
          typeof n === "number"
            ? n
            : fork.source_turn === null
              ? null
              : await sourceTurnNumber(fork.source_thread, fork.source_turn).catch(() => null);
        if (num !== null) reveal(fork.source_thread, num, before ? "user" : "assistant");
        else openTab(fork.source_thread);
      }}
      title="Show the message this fork was made from"
    >
      <ForkIcon width={13} height={13} />
      <span>
        {crossed ? `Continued in ${harnessName(harness)} from ` : "Forked from "}
        <strong>{title}</strong> {where}
      </span>
      <ArrowUpRightIcon width={13} height={13} className="lineage__go" />
    </button>
  );
}

/** Where a thread continued from another machine came from: that machine's thread, named as
 * the machine that carried it named it. It opens where this window can reach it: a host added
 * here (`HOST:ID`), or this machine's own thread. */
export function MovedFromLine({ origin }: { origin: BranchOrigin }) {
  const hosts = useRemote((s) => s.hosts);
  const here = useApp((s) => threadById(s, origin.thread));
  const host = origin.host ?? "another machine";
  const target = hosts?.some((h) => h.name === origin.host)
    ? remoteThreadId(host, origin.thread)
    : here
      ? origin.thread
      : null;
  const words = (
    <span>
      Continued from <strong>{origin.title}</strong> on {host} after turn {origin.turns}
    </span>
  );
  if (!target)
    return (
      <span className="lineage lineage--static" data-moved-from={host} title={`Thread ${origin.thread} on ${host}`}>
        {words}
      </span>
    );
  return (
    <button
      type="button"
      className="lineage"
      data-moved-from={host}
      data-action="open-moved-from"
      title={`Open the thread it came from, on ${host}`}
      onClick={() => openTab(target)}
    >
      {words}
      <ArrowUpRightIcon width={13} height={13} className="lineage__go" />
    </button>
  );
}
