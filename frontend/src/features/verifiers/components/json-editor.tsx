import { useState } from "react";

/**
 * A textarea for a JSON value: keeps the text as typed, reports the parsed value when it
 * parses (and `undefined` with `valid=false` when it does not), and says what is wrong.
 */
export function JsonEditor({
  id,
  value,
  onChange,
  rows = 6,
  requireObject = true,
  invalid,
}: {
  id: string;
  value: unknown;
  onChange: (value: unknown, valid: boolean) => void;
  rows?: number;
  requireObject?: boolean;
  invalid?: boolean;
}) {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);

  function change(next: string) {
    setText(next);
    if (!next.trim()) {
      setProblem(null);
      onChange(undefined, true);
      return;
    }
    try {
      const parsed: unknown = JSON.parse(next);
      if (requireObject && (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))) {
        setProblem("must be a JSON object");
        onChange(undefined, false);
        return;
      }
      setProblem(null);
      onChange(parsed, true);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "not valid JSON");
      onChange(undefined, false);
    }
  }

  return (
    <>
      <textarea
        id={id}
        className="vf-textarea"
        rows={rows}
        spellCheck={false}
        value={text}
        aria-invalid={problem !== null || invalid ? true : undefined}
        onChange={(e) => change(e.target.value)}
      />
      {problem && <span className="field-error">Invalid JSON: {problem}</span>}
    </>
  );
}
