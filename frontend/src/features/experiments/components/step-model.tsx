import { QueryPlaceholder } from "@/components/ui/card";

import { useModels } from "../api/get-models";
import type { AvailableModels } from "../api/types";
import type { Draft } from "../lib/draft";
import { ModelTrainingOptions } from "./model-training-options";
import { WizardField } from "./wizard-field";

function parameters(count: number | null): string {
  if (count === null) return "";
  if (count >= 1e9) return `${(count / 1e9).toFixed(1)}B parameters`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M parameters`;
  return `${Math.round(count / 1e3)}k parameters`;
}

/** What the worker read of the model's directory; a detail it could not read is left out. */
function details(model: AvailableModels["models"][number]): string {
  const context = model.context_length ? `${model.context_length.toLocaleString("en")} tokens of context` : null;
  const chat = model.chat_template === true ? "chat template" : model.chat_template === false ? "no chat template" : null;
  return [model.architecture, model.dtype, context, chat].filter(Boolean).join(" · ");
}

/** Step 2: a model some running training worker can load, how its prompts are formatted, and
 * whether it trains every weight or LoRA adapters. */
export function StepModel({ draft, errors, onChange }: { draft: Draft; errors: Record<string, string>; onChange: (draft: Draft) => void }) {
  const error = errors["config.model"];
  const models = useModels();
  const chosen = models.data?.models.find((m) => m.name === draft.model);
  return (
    <div className="stack">
      <p className="ex-step-intro">
        Only models a running worker on the training queue can load are offered: the built-in tiny model, and Hugging Face model
        directories under the workers' models folder.
      </p>
      <QueryPlaceholder query={models} />
      {models.data && models.data.models.length === 0 && (
        <div className="alert alert-warning" role="status">
          <strong>No worker is running, so no model can be trained.</strong>{" "}
          {models.data.detail}
          <div className="ex-command">
            Start one with <code>make worker</code> (or <code>celery -A crucible worker -Q gpu,cpu,default</code>); it appears here within a few seconds.
          </div>
        </div>
      )}
      {models.data && models.data.models.length > 0 && (
        <WizardField label="Base model" error={error} help={`${models.data.workers} worker${models.data.workers === 1 ? "" : "s"} running.`}>
          {(control) => (
            <select {...control} className="select ex-wide" value={draft.model} onChange={(e) => onChange({ ...draft, model: e.target.value })}>
              <option value="">Choose a model…</option>
              {draft.model && !chosen && <option value={draft.model}>{draft.model} (no running worker offers it)</option>}
              {models.data.models.map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name}
                  {m.builtin ? " (built in)" : ""}
                </option>
              ))}
            </select>
          )}
        </WizardField>
      )}
      {chosen && (
        <div className="ex-model-card">
          <div className="row">
            <strong>{chosen.name}</strong>
            {chosen.builtin && <span className="ex-chip">built-in demo model</span>}
            <span className="subtle">{parameters(chosen.parameters)}</span>
          </div>
          {details(chosen) && <div className="subtle">{details(chosen)}</div>}
          <div className="subtle">
            {chosen.ready ? "Ready on" : "Built on first use (about a minute) by"} {chosen.workers.join(", ")}
            {chosen.builtin && ". It comes warm-started on digit sorting, so a run on the digit-sort family visibly learns on a CPU within minutes."}
          </div>
        </div>
      )}
      {error && !models.data?.models.length && <div className="field-error">{error}</div>}
      <ModelTrainingOptions draft={draft} model={chosen} errors={errors} onChange={onChange} />
    </div>
  );
}
