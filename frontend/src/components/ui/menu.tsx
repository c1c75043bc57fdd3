import { useEffect, useId, useRef, useState, type ReactNode } from "react";

/**
 * A button that opens a popup menu; closes on outside click, Escape and selection.
 * `children` receives `close` so items can shut the menu after acting.
 */
export function Menu({
  label,
  trigger,
  align = "start",
  children,
}: {
  label: string;
  trigger: ReactNode;
  align?: "start" | "end";
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(false);
    };
    document.addEventListener("mousedown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div className="menu-root" ref={rootRef}>
      <button
        type="button"
        className="btn btn-ghost"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        {trigger}
      </button>
      {open && (
        <div
          id={menuId}
          role="menu"
          aria-label={label}
          className={align === "end" ? "menu menu-align-end" : "menu"}
        >
          {children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
