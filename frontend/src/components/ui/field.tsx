import type { CSSProperties, ReactNode } from "react";

/** A labelled form control; `id` ties the label to the control for screen readers and tests. */
export function Field({
  id,
  label,
  hint,
  style,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <div className="field" style={style}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <span className="field-hint">{hint}</span>}
    </div>
  );
}
