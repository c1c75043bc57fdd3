import { useState, type InputHTMLAttributes } from "react";

function parse(text: string): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A number field that keeps the text as typed ("0.", "1e-") while reporting the number it
 * means, so partial input is not rewritten under the cursor; empty reports undefined.
 */
export function NumberInput({
  value,
  onValue,
  ...rest
}: { value: number | undefined; onValue: (value: number | undefined) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "value" | "onChange" | "type"
>) {
  const [text, setText] = useState(value === undefined ? "" : String(value));
  // A change from outside (reset, another version) replaces the text.
  const shown = parse(text) === value ? text : value === undefined ? "" : String(value);
  return (
    <input
      {...rest}
      type="number"
      value={shown}
      onChange={(e) => {
        setText(e.target.value);
        onValue(parse(e.target.value));
      }}
    />
  );
}
