// Name a deployment of one of the team's registered models; it serves the model's production
// version. A model without one is refused (409), said under "Model".
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";

import { FormAlert, FormField } from "@/components/ui/form-field";
import { fieldErrors } from "@/lib/field-errors";
import { useRegisteredModels } from "@/lib/registry";

import { useCreateDeployment } from "../api/deployments";
import { slugify } from "../lib/format";

const SHOWN = new Set(["name", "slug", "registered_model"]);

export function CreateDeployment({ team }: { team: string }) {
  const navigate = useNavigate();
  const models = useRegisteredModels(team);
  const create = useCreateDeployment();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [model, setModel] = useState("");
  const { byField, other } = fieldErrors(create.error, (field) => SHOWN.has(field));
  const choices = models.data?.results ?? [];

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      { team, name: name.trim(), slug: slug.trim(), registered_model: Number(model) },
      { onSuccess: (made) => navigate(`/deployments/${made.slug}`) },
    );
  }

  return (
    <form className="dp-form" aria-label="New deployment" onSubmit={submit}>
      <FormAlert messages={other} />
      <div className="form-row">
        <FormField label="Name" error={byField.name}>
          {(control) => (
            <input
              {...control}
              className="input"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (!slugEdited) setSlug(slugify(e.target.value));
              }}
              placeholder="sorter"
            />
          )}
        </FormField>
        <FormField label="Slug" error={byField.slug} hint="In the URL: /api/v1/deployments/<slug>/generate/">
          {(control) => (
            <input
              {...control}
              className="input"
              value={slug}
              onChange={(e) => {
                setSlug(e.target.value);
                setSlugEdited(e.target.value !== "");
              }}
              placeholder="sorter"
            />
          )}
        </FormField>
        <FormField
          label="Model"
          error={byField.registered_model}
          hint="Its production version is served."
        >
          {(control) => (
            <select {...control} className="select" value={model} onChange={(e) => setModel(e.target.value)}>
              <option value="" disabled>
                {models.isPending ? "Loading models…" : choices.length ? "Choose a model" : "No registered models"}
              </option>
              {choices.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          )}
        </FormField>
      </div>
      <div>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !slug.trim() || !model || create.isPending}
        >
          Create deployment
        </button>
      </div>
    </form>
  );
}
