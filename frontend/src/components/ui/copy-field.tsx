import { useState } from "react";

import { Icon } from "./icon";

export function CopyField({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // Without clipboard permission the value stays selectable by hand.
      setCopied(false);
    }
  }

  return (
    <div className="secret">
      <code aria-label={label} data-testid="secret-value">
        {value}
      </code>
      <button type="button" className="btn" onClick={copy}>
        <Icon name={copied ? "check" : "copy"} size={14} />
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}
