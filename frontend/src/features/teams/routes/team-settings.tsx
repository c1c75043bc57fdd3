import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { useMe } from "@/lib/auth";
import { useCurrentTeam } from "@/lib/current-team";

import { useMembers } from "../api/get-members";
import { AddMemberForm } from "../components/add-member-form";
import { CreateTeamForm } from "../components/create-team-form";
import { MembersTable } from "../components/members-table";

function Members({ slug, canManage }: { slug: string; canManage: boolean }) {
  const members = useMembers(slug);
  const username = useMe().data?.username ?? "";
  if (!members.data) return <QueryPlaceholder query={members} />;
  return (
    <MembersTable slug={slug} members={members.data} canManage={canManage} currentUsername={username} />
  );
}

export function TeamSettingsRoute() {
  const { team, setTeam } = useCurrentTeam();
  const isAdmin = team?.role === "admin";

  return (
    <>
      <PageHeader
        title="Team"
        description="Members of a team share its task families, verifiers, experiments and reports. Admins manage membership."
      />
      <div className="stack">
        {team ? (
          <>
            <Card
              title={`Members of ${team.name}`}
              description={`Your role: ${team.role}${isAdmin ? "" : " · only admins can add or change members"}`}
            >
              <Members slug={team.slug} canManage={isAdmin} />
            </Card>
            <Card title="Add a member">
              <div className="card-body">
                <AddMemberForm slug={team.slug} />
              </div>
            </Card>
          </>
        ) : (
          <EmptyState title="You are not in a team yet" icon="team">
            Create a team below, or ask a team admin to add you.
          </EmptyState>
        )}
        <Card title="Create a team" description="You become its admin.">
          <div className="card-body">
            <CreateTeamForm onCreated={(created) => created.slug && setTeam(created.slug)} />
          </div>
        </Card>
      </div>
    </>
  );
}
