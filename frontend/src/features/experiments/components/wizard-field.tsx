import { useId, type ReactNode } from "react";

export type ControlProps = { id: string; "aria-invalid"?: true; "aria-describedby"?: string };

/**
 * A labelled control with its one-line help and, when the server refused it, the message
 * under it (the control is marked invalid and described by the message).
 */
export function WizardField({
  label,
  help,
  error,
  children,
  className,
  aside,
}: {
  label: ReactNode;
  /** Beside the label, outside it (a control inside a label would be labelled by it too). */
  aside?: ReactNode;
  help?: ReactNode;
  error?: string;
  children: (control: ControlProps) => ReactNode;
  className?: string;
}) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [error ? errorId : null, help ? helpId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field ex-field${className ? ` ${className}` : ""}`}>
      <div className="ex-field-head">
        <label htmlFor={id}>{label}</label>
        {aside}
      </div>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {error && (
        <span className="field-error" id={errorId}>
          {error}
        </span>
      )}
      {help && (
        <span className="field-hint" id={helpId}>
          {help}
        </span>
      )}
    </div>
  );
}
