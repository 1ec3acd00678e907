// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import type { CostFigure } from "../bindings/CostFigure";
import * as ipc from "../ipc";
import { store } from "../state";
import { NO_COST } from "./cost";
import { CostChip } from "./CostChip";
import { TreeCostDialog } from "./TreeCostDialog";
import { TurnCost } from "./TurnCost";

vi.mock("../ipc", () => import("../testing/ipcMock"));

const spent = (turns: number, usd: number, unpriced = 0): CostFigure => ({
  ...NO_COST.own,
  turns,
  input_tokens: 1000 * turns,
  output_tokens: 100 * turns,
  cost_usd: usd,
  unpriced_turns: unpriced,
});

describe("cost views", () => {
  afterEach(() => {
    cleanup();
    store.set({ dialog: null });
  });

  it("the header chip says this branch's own spend and what it inherited, and opens the tree", () => {
    const cost = { own: spent(1, 0.01), inherited: spent(2, 0.5), price_table: "prices 1" };
    const view = render(<CostChip threadId="t1" cost={cost} />);
    const chip = view.getByRole("button");
    expect(chip.textContent).toBe("this branch 1.1k tokens · $0.0100 · inherited $0.5000");
    expect(chip.title).toContain("Prices: prices 1");
    fireEvent.click(chip);
    expect(store.get().dialog).toEqual({ kind: "tree-cost", threadId: "t1" });
  });

  it("past Settings' warning the chip says so, and a turn that crosses it brings a toast", () => {
    store.set({ settings: { ...store.get().settings, cost_warning_cents: 50 }, toasts: [] });
    const under = { own: spent(1, 0.4), inherited: NO_COST.own, price_table: "p" };
    const view = render(<CostChip threadId="t1" cost={under} />);
    expect(view.getByRole("button").dataset.overWarning).toBeUndefined();
    expect(store.get().toasts).toHaveLength(0);
    view.rerender(<CostChip threadId="t1" cost={{ ...under, own: spent(2, 0.6) }} />);
    expect(view.getByRole("button").dataset.overWarning).toBe("true");
    expect(store.get().toasts.map((t) => t.title)).toEqual(["This thread has spent $0.6000"]);
    store.set({ settings: { ...store.get().settings, cost_warning_cents: 0 }, toasts: [] });
  });

  it("a thread already past the warning when opened has no toast, only the chip's mark", () => {
    store.set({ settings: { ...store.get().settings, cost_warning_cents: 50 }, toasts: [] });
    const view = render(<CostChip threadId="t1" cost={{ own: spent(1, 2), inherited: NO_COST.own, price_table: "p" }} />);
    expect(view.getByRole("button").dataset.overWarning).toBe("true");
    expect(store.get().toasts).toHaveLength(0);
    store.set({ settings: { ...store.get().settings, cost_warning_cents: 0 } });
  });

  it("a thread with no usage shows no chip", () => {
    const view = render(<CostChip threadId="t1" cost={NO_COST} />);
    expect(view.container.textContent).toBe("");
  });

  it("a reply's figure marks an inherited turn and an unknown price", () => {
    const usage = {
      input_tokens: 50,
      output_tokens: 7,
      cached_input_tokens: null,
      cache_write_tokens: null,
      reasoning_tokens: null,
      cost_usd: null,
    };
    const view = render(
      <TurnCost figure={{ usage, model: "m", cost_usd: null, priced_by: "unknown", inherited: true }} priceTable="p" />,
    );
    const span = view.container.querySelector("[data-turn-cost]") as HTMLElement;
    expect(span.textContent).toBe("50 in / 7 out · unknown price");
    expect(span.dataset.inherited).toBe("true");
    expect(span.title).toContain("m is not in p");
  });

  it("the tree dialog lists each branch's own spend and the sum", async () => {
    vi.mocked(ipc.treeCost).mockResolvedValue({
      root: "a",
      threads: [
        { thread_id: "a", title: "Root", harness: "claude", own: spent(2, 0.2), inherited: NO_COST.own, turns: [], price_table: "p" },
        { thread_id: "b", title: "Fork", harness: "claude", own: spent(1, 0, 1), inherited: spent(1, 0.1), turns: [], price_table: "p" },
      ],
      total: spent(3, 0.2, 1),
      price_table: "p",
    });
    const view = render(<TreeCostDialog threadId="b" />);
    await waitFor(() => expect(view.container.querySelector("[data-tree-cost-total]")).not.toBeNull());
    const rows = Array.from(view.container.querySelectorAll("tbody tr")).map((r) => r.textContent);
    expect(rows).toEqual(["Root22.2k$0.2000", "Fork11.1kunknown price"]);
    expect(view.container.querySelector("[data-tree-cost-total]")?.textContent).toBe(
      "The whole tree33.3k$0.2000 + 1 unpriced",
    );
    expect(view.container.querySelector('[data-tree-cost-thread="b"]')?.getAttribute("data-current")).toBe("true");
  });
});
