import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { fieldErrors } from "@/lib/field-errors";
import { usePoolVersions } from "@/lib/pool-versions";

import { useVerifiers } from "../api/get-choices";
import { useSuite } from "../api/get-suites";
import { useDeleteSuite } from "../api/delete-suite";
import { useSaveSuite } from "../api/save-suite";
import type { EvaluationSuite, PoolVersion, Verifier } from "../api/types";
import { shownSuiteField, SuiteForm } from "../components/suite-form";
import "../evaluation-suites.css";

function Editor({ suite, versions, verifiers }: { suite: EvaluationSuite | null; versions: PoolVersion[]; verifiers: Verifier[] }) {
  const { team } = useCurrentTeam();
  const navigate = useNavigate();
  const save = useSaveSuite(suite?.id ?? null, team?.slug);
  const remove = useDeleteSuite();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { byField, other } = fieldErrors(save.error, shownSuiteField);
  const actions = suite && (
    <>
      <Link className="btn" to={`/evaluations/new?suite=${suite.id}`}>
        Evaluate with this suite
      </Link>
      <button type="button" className="btn btn-ghost" onClick={() => setConfirmDelete(true)}>
        Delete
      </button>
    </>
  );
  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/evaluation-suites">Evaluation suites</Link> /
      </div>
      <PageHeader
        title={suite ? suite.name : "New evaluation suite"}
        description="The held-out sets a checkpoint is judged on, each with the verifier that judges it and the drop that counts as a regression."
        actions={actions}
      />
      <Card title="Suite">
        <SuiteForm
          suite={suite}
          versions={versions}
          verifiers={verifiers}
          pending={save.isPending}
          errorFor={(path) => byField[path]}
          messages={other}
          onSubmit={(input) =>
            save.mutate(input, { onSuccess: (saved) => navigate(`/evaluation-suites/${saved.id}`, { replace: true }) })
          }
        />
        {save.isSuccess && !save.isPending && (
          <p className="card-body subtle" role="status">
            Saved.
          </p>
        )}
      </Card>
      {confirmDelete && suite && (
        <ConfirmDialog
          title={`Delete “${suite.name}”?`}
          confirmLabel={remove.isPending ? "Deleting…" : "Delete suite"}
          pending={remove.isPending}
          error={remove.error}
          onCancel={() => setConfirmDelete(false)}
          onConfirm={() => remove.mutate(suite.id, { onSuccess: () => navigate("/evaluation-suites") })}
        >
          A suite that evaluations or experiments use is kept.
        </ConfirmDialog>
      )}
    </>
  );
}

export function SuiteEditorRoute() {
  const param = useParams().suiteId;
  const id = param ? Number(param) : null;
  const suite = useSuite(id);
  const versions = usePoolVersions();
  const verifiers = useVerifiers();
  const loading = [id !== null ? suite : null, versions, verifiers].find((q) => q && !q.data);
  if (loading) {
    return (
      <>
        <PageHeader title={id === null ? "New evaluation suite" : "Evaluation suite"} />
        <QueryPlaceholder query={loading} />
      </>
    );
  }
  // Keyed by suite so that another suite's page starts from its own values.
  return <Editor key={id ?? "new"} suite={suite.data ?? null} versions={versions.data ?? []} verifiers={verifiers.data ?? []} />;
}
