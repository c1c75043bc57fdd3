import { ActionCell } from "@/components/ui/card";
import { formatDateTime, formatRelative } from "@/lib/format";

import type { ApiToken } from "../api/get-tokens";

function TokenStatus({ token, now }: { token: ApiToken; now: Date }) {
  if (token.revoked_at) return <span className="badge badge-danger">Revoked</span>;
  if (token.expires_at && new Date(token.expires_at) <= now) {
    return <span className="badge">Expired</span>;
  }
  return <span className="badge badge-success">Active</span>;
}

export function TokensTable({
  tokens,
  onRevoke,
}: {
  tokens: ApiToken[];
  onRevoke: (token: ApiToken) => void;
}) {
  const now = new Date();
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Team</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Last used</th>
            <th>Status</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id} className={token.revoked_at ? "is-inactive" : undefined}>
              <td>{token.name}</td>
              <td className="mono">{token.prefix}…</td>
              <td>{token.team ?? <span className="subtle">All teams</span>}</td>
              <td title={formatDateTime(token.created_at)}>{formatRelative(token.created_at, now)}</td>
              <td title={formatDateTime(token.expires_at)}>
                {token.expires_at ? formatRelative(token.expires_at, now) : "Never"}
              </td>
              <td title={formatDateTime(token.last_used_at)}>
                {token.last_used_at ? formatRelative(token.last_used_at, now) : "Never"}
              </td>
              <td title={token.revoked_at ? `Revoked ${formatDateTime(token.revoked_at)}` : undefined}>
                <TokenStatus token={token} now={now} />
              </td>
              {token.revoked_at ? (
                <td />
              ) : (
                <ActionCell label="Revoke" name={token.name} onClick={() => onRevoke(token)} />
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
