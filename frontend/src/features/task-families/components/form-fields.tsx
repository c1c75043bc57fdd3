import type { CSSProperties, InputHTMLAttributes, ReactNode } from "react";

/** The server's message under the control it is about; `id` lets the control point at it. */
export function FieldError({ message, id }: { message?: string; id: string }) {
  return message ? (
    <span className="field-error" id={id}>
      {message}
    </span>
  ) : null;
}

/** A labelled text or number input with its hint and the server's message about it. */
export function InputField({
  id,
  label,
  value,
  onChange,
  error,
  hint,
  style,
  multiline = false,
  ...input
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: ReactNode;
  style?: CSSProperties;
  /** A monospace textarea, for templates. */
  multiline?: boolean;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange" | "style">) {
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const shared = {
    id,
    value,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": described,
  } as const;
  return (
    <div className="field" style={style}>
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea
          {...shared}
          className="input tf-textarea mono"
          rows={4}
          placeholder={input.placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input {...input} {...shared} className={input.className ?? "input"} onChange={(e) => onChange(e.target.value)} />
      )}
      {hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
