import { PageHeader } from "@/components/ui/page-header";
import { useMe } from "@/lib/auth";
import { useCurrentTeam } from "@/lib/current-team";

import { ActivityCard } from "../components/activity-card";
import { HealthCard } from "../components/health-card";
import { TeamsCard } from "../components/teams-card";

export function OverviewRoute() {
  const me = useMe().data;
  const { team, teams, setTeam } = useCurrentTeam();

  return (
    <>
      <PageHeader
        title={me ? `Welcome, ${me.username}` : "Overview"}
        description="Define verifiable tasks, train models against them with RL, and ship checkpoints once their evaluation reports are reviewed."
      />
      <div className="grid-2">
        <TeamsCard teams={teams} current={team?.slug ?? null} onSelect={setTeam} />
        <HealthCard />
      </div>
      <div style={{ marginTop: "var(--space-4)" }}>
        <ActivityCard team={team} />
      </div>
    </>
  );
}
