import { Link, useNavigate } from "react-router";

import { Menu } from "@/components/ui/menu";
import { useLogout, useMe } from "@/lib/auth";

export function UserMenu() {
  const me = useMe().data;
  const logout = useLogout();
  const navigate = useNavigate();
  if (!me) return null;

  return (
    <Menu
      label="User menu"
      align="end"
      trigger={
        <>
          <span className="avatar" aria-hidden="true">
            {me.username.slice(0, 2)}
          </span>
          <span>{me.username}</span>
        </>
      }
    >
      {(close) => (
        <>
          <div className="menu-label">
            Signed in as <strong>{me.username}</strong>
            {me.email && <div>{me.email}</div>}
          </div>
          <div className="menu-separator" role="separator" />
          <Link to="/settings/tokens" role="menuitem" className="menu-item" onClick={close}>
            API tokens
          </Link>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              close();
              logout.mutate(undefined, { onSettled: () => navigate("/login", { replace: true }) });
            }}
          >
            Log out
          </button>
        </>
      )}
    </Menu>
  );
}
