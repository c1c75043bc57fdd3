import type { Role } from "../api/get-members";

/** In order of decreasing rights; `satisfies` breaks the build if the API's roles change. */
export const ROLES = ["admin", "editor", "viewer"] as const satisfies readonly Role[];

export const ROLE_LABELS: Record<Role, string> = {
  admin: "Admin",
  editor: "Editor",
  viewer: "Viewer",
};

export const ROLE_HINTS: Record<Role, string> = {
  admin: "manages members and everything else",
  editor: "creates and changes task families, verifiers and experiments",
  viewer: "reads only",
};

export function RoleOptions() {
  return ROLES.map((role) => (
    <option key={role} value={role}>
      {ROLE_LABELS[role]}
    </option>
  ));
}
