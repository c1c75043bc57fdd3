import { ConceptPage } from "@/components/ui/concept-page";

export function VerifiersRoute() {
  return (
    <ConceptPage
      title="Verifiers"
      icon="verifiers"
      description="A verifier judges an answer layer by layer — syntax, semantics, boundary cases and constraints — and turns the results into rewards."
      emptyTitle="No verifiers yet"
      emptyBody="Verifiers will appear here with their layers, reward weights and false-positive and false-negative rates on labelled examples."
    />
  );
}
