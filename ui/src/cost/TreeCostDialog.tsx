// "Cost of this tree": every branch of a lineage tree with what its own turns cost, and the
// sum — each turn counted once, which is what the provider billed for them.
import { useEffect, useState } from "react";
import type { TreeCost } from "../bindings/TreeCost";
import { describeError } from "../errors";
import * as ipc from "../ipc";
import { Spinner } from "../ui/icons";
import { Modal } from "../ui/Modal";
import { openTab } from "../tabs/tabs";
import { closeDialog } from "../ui/open";
import { count, figureMoney, figureTitle, tokensOf } from "./cost";

type Load = { state: "loading" } | { state: "ok"; tree: TreeCost } | { state: "error"; message: string };

export function TreeCostDialog({ threadId }: { threadId: string }) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  useEffect(() => {
    let live = true;
    ipc.treeCost(threadId).then(
      (tree) => live && setLoad({ state: "ok", tree }),
      (err) => live && setLoad({ state: "error", message: describeError(err).message }),
    );
    return () => {
      live = false;
    };
  }, [threadId]);
  return (
    <Modal title="Cost of this tree" label="tree-cost" wide>
      {load.state === "loading" && <Spinner size={12} />}
      {load.state === "error" && (
        <p className="form__error" role="alert">
          {load.message}
        </p>
      )}
      {load.state === "ok" && (
        <div className="form">
          <p className="muted">
            Each branch's own turns — those after its fork point. Inherited turns are counted once, in the branch
            that made them.
          </p>
          <table className="cost-table">
            <thead>
              <tr>
                <th>Branch</th>
                <th>Own turns</th>
                <th>Tokens</th>
                <th>Cost</th>
              </tr>
            </thead>
            <tbody>
              {load.tree.threads.map((t) => (
                <tr key={t.thread_id} data-tree-cost-thread={t.thread_id} data-current={t.thread_id === threadId || undefined}>
                  <td>
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => {
                        closeDialog();
                        openTab(t.thread_id);
                      }}
                    >
                      {t.title}
                    </button>
                  </td>
                  <td>{t.own.turns}</td>
                  <td title={figureTitle(t.own)}>{count(tokensOf(t.own))}</td>
                  <td>{figureMoney(t.own) ?? "—"}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-tree-cost-total="">
                <th>The whole tree</th>
                <th>{load.tree.total.turns}</th>
                <th title={figureTitle(load.tree.total)}>{count(tokensOf(load.tree.total))}</th>
                <th>{figureMoney(load.tree.total) ?? "—"}</th>
              </tr>
            </tfoot>
          </table>
          <p className="muted">Prices: {load.tree.price_table}</p>
        </div>
      )}
    </Modal>
  );
}
