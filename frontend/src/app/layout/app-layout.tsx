import { useEffect } from "react";
import { Link, Navigate, Outlet, useLocation } from "react-router";

import { ErrorMessage } from "@/components/ui/error-message";
import { Logo } from "@/components/ui/icon";
import { FullPageSpinner } from "@/components/ui/spinner";
import { useMe } from "@/lib/auth";
import { useLiveClient } from "@/lib/live";

import { LiveIndicator } from "./live-indicator";
import { Sidebar } from "./sidebar";
import { TeamSwitcher } from "./team-switcher";
import { UserMenu } from "./user-menu";

function LiveConnection() {
  const live = useLiveClient();
  useEffect(() => {
    live?.start();
    return () => live?.stop();
  }, [live]);
  return null;
}

/** The signed-in shell; anonymous visitors go to /login and come back afterwards. */
export function AppLayout() {
  const me = useMe();
  const location = useLocation();

  if (me.isPending) return <FullPageSpinner />;
  if (me.isError) {
    return (
      <div className="center-screen">
        <div className="stack" style={{ width: 360 }}>
          <ErrorMessage error={me.error} />
          <button type="button" className="btn" onClick={() => me.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (!me.data) {
    const next = location.pathname + location.search;
    const to = next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`;
    return <Navigate to={to} replace />;
  }

  return (
    <div className="shell">
      <LiveConnection />
      <header className="header">
        <Link to="/" className="brand">
          <Logo />
          <span>Crucible</span>
        </Link>
        <span className="header-divider" aria-hidden="true" />
        <TeamSwitcher />
        <span className="header-spacer" />
        <LiveIndicator />
        <UserMenu />
      </header>
      <Sidebar />
      <main className="main">
        <div className="main-inner">
          <Outlet />
        </div>
      </main>
    </div>
  );
}
