// A reply's tokens and money, at the end of its actions bar: faint until the row is hovered or
// selected (by colour, like the actions: see styles/cost.css), the exact figures in its tooltip.
import { type TurnFigure, turnText, turnTitle } from "./cost";

export function TurnCost({ figure, priceTable }: { figure: TurnFigure; priceTable?: string }) {
  const text = turnText(figure);
  if (text === null) return null;
  return (
    <span
      className={`msg__cost${figure.inherited ? " msg__cost--inherited" : ""}`}
      data-turn-cost=""
      data-inherited={figure.inherited ? "true" : undefined}
      title={turnTitle(figure, priceTable ?? "the price table")}
    >
      {text}
    </span>
  );
}
