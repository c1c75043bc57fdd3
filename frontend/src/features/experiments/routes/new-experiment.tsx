import { Link, useSearchParams } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";

import { useAlgorithms } from "../api/get-algorithms";
import { useExperiment } from "../api/get-experiment";
import { Wizard } from "../components/wizard";
import "../experiments.css";
import { draftFromExperiment, emptyDraft } from "../lib/draft";

/** /experiments/new, or /experiments/new?from=<id> to clone an experiment into the wizard. */
export function NewExperimentRoute() {
  const [params] = useSearchParams();
  const from = Number(params.get("from")) || null;
  const source = useExperiment(from);
  const algorithms = useAlgorithms();
  const breadcrumbs = (
    <div className="subtle" style={{ marginBottom: 4 }}>
      <Link to="/experiments">Experiments</Link> /
    </div>
  );

  if (from !== null) {
    if (!source.data || !algorithms.data) {
      return (
        <>
          {breadcrumbs}
          <PageHeader title="Clone experiment" />
          <QueryPlaceholder query={source.data ? algorithms : source} />
        </>
      );
    }
    return (
      <>
        {breadcrumbs}
        <PageHeader
          title={`Clone “${source.data.name}”`}
          description="Experiments are frozen: change what you need here and a new experiment is created from it, with the original as its parent."
        />
        <Wizard key={`clone-${from}`} initial={draftFromExperiment(source.data, algorithms.data)} parent={source.data} />
      </>
    );
  }
  return (
    <>
      {breadcrumbs}
      <PageHeader
        title="New experiment"
        description="Pin a curriculum with a verifier per family, a model, an algorithm and its hyper-parameters, and held-out sets; then launch a run."
      />
      <Wizard key="new" initial={emptyDraft()} parent={null} />
    </>
  );
}
