import { useId, type ReactNode } from "react";

export type ControlProps = { id: string; "aria-invalid"?: true; "aria-describedby"?: string; disabled?: boolean };

/** A labelled control, with the server's message under it when it refused the value (the
 * control is then marked invalid and described by the message). */
export function FormField({
  label,
  help,
  error,
  disabled,
  className,
  children,
}: {
  label: ReactNode;
  help?: ReactNode;
  error?: string;
  disabled?: boolean;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : null, help ? `${id}-help` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field es-field${className ? ` ${className}` : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy, disabled })}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
      {help && (
        <span className="field-hint" id={`${id}-help`}>
          {help}
        </span>
      )}
    </div>
  );
}
