import { useId, type ReactNode } from "react";

import { ErrorMessage } from "./error-message";
import { Spinner } from "./spinner";

export function Card({
  title,
  description,
  actions,
  children,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <div>
          <h2 id={titleId}>{title}</h2>
          {description && <div className="card-description">{description}</div>}
        </div>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** What a card shows while its query loads or after it failed; nothing once it has data. */
export function QueryPlaceholder({ query }: { query: { isPending: boolean; error: unknown } }) {
  if (query.error) {
    return (
      <div className="card-body">
        <ErrorMessage error={query.error} />
      </div>
    );
  }
  if (query.isPending) {
    return (
      <div className="card-body">
        <Spinner />
      </div>
    );
  }
  return null;
}

/** A table cell holding one small button named for its row ("Revoke laptop"). */
export function ActionCell({
  label,
  name,
  onClick,
}: {
  label: string;
  name: string;
  onClick: () => void;
}) {
  return (
    <td className="cell-actions">
      <button type="button" className="btn btn-sm" aria-label={`${label} ${name}`} onClick={onClick}>
        {label}
      </button>
    </td>
  );
}
