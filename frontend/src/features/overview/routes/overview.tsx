import { PageHeader } from "@/components/ui/page-header";
import { useMe } from "@/lib/auth";
import { useCurrentTeam } from "@/lib/current-team";

import { useRefreshOnChanges } from "../api/use-refresh-on-changes";
import { ActivityCard } from "../components/activity-card";
import { FirstStepsCard } from "../components/first-steps-card";
import { HealthCard } from "../components/health-card";
import { TeamSummaryCard } from "../components/team-summary-card";
import { TeamsCard } from "../components/teams-card";

import "../overview.css";

export function OverviewRoute() {
  const me = useMe().data;
  const { team, teams, setTeam } = useCurrentTeam();
  useRefreshOnChanges();

  return (
    <>
      <PageHeader
        title={me ? `Welcome, ${me.username}` : "Overview"}
        description="Define verifiable tasks, train models against them with RL, and ship checkpoints once their evaluation reports are reviewed."
      />
      {team && (
        <div className="grid-2 ov-section">
          <TeamSummaryCard team={team} />
          <FirstStepsCard team={team} />
        </div>
      )}
      <div className="grid-2 ov-section">
        <TeamsCard teams={teams} current={team?.slug ?? null} onSelect={setTeam} />
        <HealthCard />
      </div>
      <div className="ov-section">
        <ActivityCard team={team} />
      </div>
    </>
  );
}
