import { useState } from "react";
import { useNavigate } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";

import { useVerifiers } from "../api/get-verifiers";
import { CreateVerifierForm } from "../components/create-verifier-form";
import { SandboxCard } from "../components/sandbox-status";
import { VerifiersTable } from "../components/verifiers-table";
import "../components/verifiers.css";

export function VerifiersRoute() {
  const verifiers = useVerifiers();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);

  return (
    <div className="vf">
      <PageHeader
        title="Verifiers"
        description="A verifier judges an answer layer by layer — syntax, semantics, boundary cases and constraints — and turns the results into rewards."
        actions={
          !creating && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              <Icon name="plus" size={14} />
              New verifier
            </button>
          )
        }
      />
      <div className="stack">
        {creating && (
          <Card title="New verifier" description="Start from a family kind's default layers, or from a blank spec.">
            <div className="card-body">
              <CreateVerifierForm
                onCancel={() => setCreating(false)}
                onCreated={(verifier) => navigate(`/verifiers/${verifier.id}`)}
              />
            </div>
          </Card>
        )}
        <Card title="Verifiers" description="Each save is a new immutable version that experiments can pin.">
          <QueryPlaceholder query={verifiers} />
          {verifiers.data?.length === 0 && (
            <div className="card-body">
              <EmptyState title="No verifiers yet" icon="verifiers">
                Create one from a family kind&apos;s default spec, then try it in the playground and measure it on
                labelled examples.
              </EmptyState>
            </div>
          )}
          {verifiers.data && verifiers.data.length > 0 && <VerifiersTable verifiers={verifiers.data} />}
        </Card>
        <SandboxCard />
      </div>
    </div>
  );
}
