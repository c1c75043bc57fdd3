import { useState } from "react";

import { ActionCell } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useRemoveMember, useUpdateMember } from "../api/change-member";
import type { Member, Role } from "../api/get-members";
import { ROLE_LABELS, RoleOptions } from "./roles";

export function MembersTable({
  slug,
  members,
  canManage,
  currentUsername,
}: {
  slug: string;
  members: Member[];
  canManage: boolean;
  currentUsername: string;
}) {
  const update = useUpdateMember(slug);
  const remove = useRemoveMember(slug);
  const [removing, setRemoving] = useState<Member | null>(null);

  function closeRemove() {
    setRemoving(null);
    remove.reset();
  }

  return (
    <>
      {update.error && (
        <div className="card-body">
          <ErrorMessage error={update.error} />
        </div>
      )}
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th>Username</th>
              <th>Role</th>
              <th>Joined</th>
              {canManage && (
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <td>
                  {member.username}
                  {member.username === currentUsername && <span className="subtle"> (you)</span>}
                </td>
                <td>
                  {canManage ? (
                    <select
                      className="select"
                      aria-label={`Role of ${member.username}`}
                      value={member.role}
                      disabled={update.isPending}
                      onChange={(e) =>
                        update.mutate({ id: member.id, change: { role: e.target.value as Role } })
                      }
                    >
                      <RoleOptions />
                    </select>
                  ) : (
                    <span className={member.role === "admin" ? "badge badge-accent" : "badge"}>
                      {ROLE_LABELS[member.role] ?? member.role}
                    </span>
                  )}
                </td>
                <td title={formatDateTime(member.joined_at)}>{formatRelative(member.joined_at)}</td>
                {canManage && (
                  <ActionCell label="Remove" name={member.username} onClick={() => setRemoving(member)} />
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.username}?`}
          confirmLabel="Remove member"
          pending={remove.isPending}
          error={remove.error}
          onCancel={closeRemove}
          onConfirm={() => remove.mutate(removing.id, { onSuccess: closeRemove })}
        >
          They lose access to this team’s task families, experiments and reports.
        </ConfirmDialog>
      )}
    </>
  );
}
