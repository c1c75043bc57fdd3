import { useState } from "react";
import { useNavigate } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";

import { useFamilies } from "@/lib/families";
import { useFamilyKinds } from "../api/get-family-kinds";
import { CreateFamilyForm } from "../components/create-family-form";
import { FamiliesTable } from "../components/families-table";
import "../task-families.css";

export function TaskFamiliesRoute() {
  const { team } = useCurrentTeam();
  const [archived, setArchived] = useState(false);
  const families = useFamilies(archived);
  const kinds = useFamilyKinds();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const canWrite = team?.role === "admin" || team?.role === "editor";

  return (
    <>
      <PageHeader
        title="Task families"
        description="A task family is a kind of verifiable work with a prompt template and a task source. Each family freezes its tasks into immutable, content-hashed pool versions that experiments pin."
        actions={
          canWrite &&
          !creating && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              <Icon name="plus" size={14} />
              New family
            </button>
          )
        }
      />
      <div className="stack">
        {creating && (
          <Card title="New task family" description={team ? `In ${team.name}` : undefined}>
            <QueryPlaceholder query={kinds} />
            {kinds.data && (
              <div className="card-body">
                <CreateFamilyForm
                  kinds={kinds.data}
                  team={team?.slug}
                  onCreated={(family) => navigate(`/task-families/${family.id}`)}
                  onCancel={() => setCreating(false)}
                />
              </div>
            )}
          </Card>
        )}
        <Card
          title={archived ? "Archived families" : "Families"}
          description={families.data ? `${families.data.length} in ${team?.name ?? "your teams"}` : undefined}
          actions={
            <label className="tf-check">
              <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} />
              Show archived
            </label>
          }
        >
          <QueryPlaceholder query={families} />
          {archived && families.data?.length === 0 && (
            <div className="card-body">
              <EmptyState title="No archived families" icon="families">
                A family is archived, not deleted, when a curriculum pins one of its versions.
              </EmptyState>
            </div>
          )}
          {!archived && families.data?.length === 0 && (
            <div className="card-body">
              <EmptyState
                title="No task families yet"
                icon="families"
                action={
                  canWrite && !creating ? (
                    <button type="button" className="btn" onClick={() => setCreating(true)}>
                      New family
                    </button>
                  ) : undefined
                }
              >
                Create a family, then generate or import its first pool version.
              </EmptyState>
            </div>
          )}
          {families.data && families.data.length > 0 && <FamiliesTable families={families.data} kinds={kinds.data ?? []} />}
        </Card>
      </div>
    </>
  );
}
