import { Link } from "react-router";

import { Icon } from "@/components/ui/icon";
import { Menu } from "@/components/ui/menu";
import { useCurrentTeam } from "@/lib/current-team";

export function TeamSwitcher() {
  const { team, teams, setTeam } = useCurrentTeam();

  return (
    <Menu
      label="Switch team"
      trigger={
        <>
          <span>{team?.name ?? "No team"}</span>
          <Icon name="chevron" size={14} />
        </>
      }
    >
      {(close) => (
        <>
          <div className="menu-label">Teams</div>
          {teams.map((t) => (
            <button
              key={t.slug}
              type="button"
              role="menuitemradio"
              aria-checked={t.slug === team?.slug}
              className="menu-item"
              onClick={() => {
                setTeam(t.slug);
                close();
              }}
            >
              <span style={{ width: 14 }}>{t.slug === team?.slug && <Icon name="check" size={14} />}</span>
              <span style={{ flex: 1 }}>{t.name}</span>
              <span className="subtle">{t.role}</span>
            </button>
          ))}
          {teams.length > 0 && <div className="menu-separator" role="separator" />}
          <Link to="/settings/team" role="menuitem" className="menu-item" onClick={close}>
            <Icon name="plus" size={14} />
            Create or manage teams
          </Link>
        </>
      )}
    </Menu>
  );
}
