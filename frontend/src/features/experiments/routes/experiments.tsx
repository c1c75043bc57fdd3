import { ConceptPage } from "@/components/ui/concept-page";

export function ExperimentsRoute() {
  return (
    <ConceptPage
      title="Experiments"
      icon="experiments"
      description="An experiment pins versions of task pools, a verifier, a curriculum, a model and an algorithm; each launch queues a run that streams its metrics here."
      emptyTitle="No experiments yet"
      emptyBody="Experiments and their runs will appear here, with live progress, metrics and checkpoints."
    />
  );
}
