// The header's cost chip: what this branch's own turns cost and what it inherited from its
// source (its source paid for those). A click shows the cost of the whole lineage tree.
import { useEffect, useRef } from "react";
import type { BranchCost } from "../bindings/BranchCost";
import { store, threadById, useApp } from "../state";
import { openDialog } from "../ui/open";
import { notify } from "../ui/toasts";
import { branchText, figureTitle, money } from "./cost";

/**
 * Whether a branch's own spend passed Settings' warning (`cents`, 0: never warn). Its unpriced
 * turns are not guessed at: only what has a price counts.
 */
export function overWarning(cost: BranchCost, cents: number): boolean {
  return cents > 0 && cost.own.cost_usd * 100 > cents;
}

/** Whether a branch has any figure to show (a turn of its own or inherited). */
export function hasCost(cost: BranchCost): boolean {
  return cost.own.turns + cost.inherited.turns > 0;
}

export function CostChip({ threadId, cost }: { threadId: string; cost: BranchCost }) {
  const cents = useApp((s) => s.settings.cost_warning_cents);
  const over = overWarning(cost, cents);
  // A toast when a turn takes the branch past the warning (not when a thread that already
  // was is opened: the chip says so).
  const wasOver = useRef<boolean | null>(null);
  useEffect(() => {
    if (wasOver.current === false && over) {
      const title = threadById(store.get(), threadId)?.title ?? "This thread";
      notify({
        kind: "info",
        title: `${title} has spent ${money(cost.own.cost_usd)}`,
        message: `Its own turns passed your warning of ${money(cents / 100)} (Settings).`,
      });
    }
    wasOver.current = over;
  }, [over, threadId, cost.own.cost_usd, cents]);
  const text = branchText(cost.own, cost.inherited);
  if (text === null) return null;
  const title = [
    over ? `Past your warning of ${money(cents / 100)} (Settings)` : null,
    `This branch (its own turns): ${figureTitle(cost.own)}`,
    cost.inherited.turns ? `Inherited (paid by its source): ${figureTitle(cost.inherited)}` : null,
    `Prices: ${cost.price_table}`,
    "Click for the cost of its whole tree",
  ]
    .filter(Boolean)
    .join("\n");
  return (
    <button
      type="button"
      className={`cost-chip${over ? " cost-chip--over" : ""}`}
      data-branch-cost=""
      data-over-warning={over ? "true" : undefined}
      data-action="tree-cost"
      title={title}
      onClick={() => openDialog({ kind: "tree-cost", threadId })}
    >
      {text}
    </button>
  );
}
