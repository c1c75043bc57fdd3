import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";

import { useAddMember } from "../api/add-member";
import type { Role } from "../api/get-members";
import { ROLE_HINTS, ROLE_LABELS, RoleOptions } from "./roles";

export function AddMemberForm({ slug }: { slug: string }) {
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<Role>("editor");
  const add = useAddMember(slug);

  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate({ username: username.trim(), role }, { onSuccess: () => setUsername("") });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Add member">
      <ErrorMessage error={add.error} />
      {add.isSuccess && (
        <div className="alert alert-success" role="status">
          {add.data.username} was added as {ROLE_LABELS[add.data.role] ?? add.data.role}.
        </div>
      )}
      <div className="form-row">
        <Field id="member-username" label="Username">
          <input
            id="member-username"
            className="input"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </Field>
        <Field id="member-role" label="Role" style={{ flex: "0 1 140px" }}>
          <select
            id="member-role"
            className="select"
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
          >
            <RoleOptions />
          </select>
        </Field>
        <button type="submit" className="btn btn-primary" disabled={add.isPending || !username.trim()}>
          Add member
        </button>
      </div>
      <p className="field-hint">
        {ROLE_LABELS[role]}: {ROLE_HINTS[role]}.
      </p>
    </form>
  );
}
