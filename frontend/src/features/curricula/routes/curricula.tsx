import { ConceptPage } from "@/components/ui/concept-page";

export function CurriculaRoute() {
  return (
    <ConceptPage
      title="Curricula"
      icon="curricula"
      description="A curriculum decides which difficulties and families to train on, and shifts them to keep the success rate slightly above the model’s current ability."
      emptyTitle="No curricula yet"
      emptyBody="Curricula will appear here with their difficulty distributions, family mixtures and target bands."
    />
  );
}
