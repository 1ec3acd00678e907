import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { hideMenu } from "./menu";
import { dismissToast } from "./toasts";
import { AlertIcon, CheckIcon, CloseIcon, Spinner } from "./icons";
import { useApp } from "../state";

/** The context menu (messages, tabs, threads), kept inside the window. */
export function ContextMenu() {
  const menu = useApp((s) => s.menu);
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState<{ x: number; y: number } | null>(null);

  useLayoutEffect(() => {
    if (!menu || !ref.current) {
      setPos(null);
      return;
    }
    const r = ref.current.getBoundingClientRect();
    setPos({
      x: Math.max(4, Math.min(menu.x, window.innerWidth - r.width - 4)),
      y: Math.max(4, Math.min(menu.y, window.innerHeight - r.height - 4)),
    });
    ref.current.querySelector<HTMLButtonElement>("button:not([disabled])")?.focus();
  }, [menu]);

  useEffect(() => {
    if (!menu) return;
    const close = (e: Event) => {
      if (ref.current && e.target instanceof Node && ref.current.contains(e.target)) return;
      hideMenu();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") hideMenu();
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const items = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>("button:not([disabled])") ?? []);
        const i = items.indexOf(document.activeElement as HTMLButtonElement);
        const next = items[(i + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length];
        next?.focus();
      }
    };
    window.addEventListener("mousedown", close, true);
    // The user scrolling closes the menu (it would float away from its row); a scroll the page
    // makes itself (a reply streaming in, a header laying out again) does not.
    window.addEventListener("wheel", close, { capture: true, passive: true });
    window.addEventListener("touchmove", close, { capture: true, passive: true });
    window.addEventListener("blur", hideMenu);
    window.addEventListener("keydown", onKey, true);
    window.addEventListener("resize", hideMenu);
    return () => {
      window.removeEventListener("mousedown", close, true);
      window.removeEventListener("wheel", close, true);
      window.removeEventListener("touchmove", close, true);
      window.removeEventListener("blur", hideMenu);
      window.removeEventListener("keydown", onKey, true);
      window.removeEventListener("resize", hideMenu);
    };
  }, [menu]);

  if (!menu) return null;
  return (
    <div
      ref={ref}
      className="ctxmenu"
      role="menu"
      style={{ left: pos?.x ?? menu.x, top: pos?.y ?? menu.y, visibility: pos ? "visible" : "hidden" }}
      onContextMenu={(e) => e.preventDefault()}
    >
      {menu.items.map((item, i) =>
        item === "separator" ? (
          <div key={i} className="ctxmenu__sep" role="separator" />
        ) : (
          <button
            key={i}
            type="button"
            role="menuitem"
            className={`ctxmenu__item${item.danger ? " ctxmenu__item--danger" : ""}`}
            disabled={item.disabled}
            title={item.title}
            onClick={() => {
              hideMenu();
              item.action?.();
            }}
          >
            <span>{item.label}</span>
            {item.shortcut && <kbd className="ctxmenu__kbd">{item.shortcut}</kbd>}
          </button>
        ),
      )}
    </div>
  );
}

/** Notices: fork progress and results, errors in words. */
export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast--${t.kind}`} role={t.kind === "error" ? "alert" : "status"} data-toast={t.kind}>
          <span className="toast__icon">
            {t.kind === "progress" ? (
              <Spinner size={14} />
            ) : t.kind === "error" ? (
              <AlertIcon width={16} height={16} />
            ) : (
              <CheckIcon width={16} height={16} />
            )}
          </span>
          <div className="toast__text">
            <strong>{t.title}</strong>
            {t.message && <p>{t.message}</p>}
          </div>
          {t.kind !== "progress" && (
            <button type="button" className="icon-button icon-button--small" aria-label="Dismiss" onClick={() => dismissToast(t.id)}>
              <CloseIcon width={12} height={12} />
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
