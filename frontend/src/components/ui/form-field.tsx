import { useId, type ReactNode } from "react";

export type ControlProps = { id: string; "aria-invalid"?: true; "aria-describedby"?: string; disabled?: boolean };

/** A labelled control, with the server's message under it when it refused the value (the
 * control is then marked invalid and described by the message). The control is rendered by
 * `children`, which receives the props that tie it to its label, message and hint. */
export function FormField({
  label,
  hint,
  error,
  disabled,
  className,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  disabled?: boolean;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className ? `field ${className}` : "field"}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy, disabled })}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
      {hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** The refusals a form has no field for (a 409, a network failure), above or under it. */
export function FormAlert({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <div className="alert alert-error" role="alert">
      {messages.map((m) => (
        <div key={m}>{m}</div>
      ))}
    </div>
  );
}
