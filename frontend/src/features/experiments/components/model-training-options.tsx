import type { AvailableModels } from "../api/types";
import type { Draft } from "../lib/draft";
import { WizardField } from "./wizard-field";

type Model = AvailableModels["models"][number];

/** The model step's prompt format (raw or chat, with its system prompt) and LoRA settings. */
export function ModelTrainingOptions({
  draft,
  model,
  errors,
  onChange,
}: {
  draft: Draft;
  /** The chosen model, when a running worker offers it. */
  model: Model | undefined;
  errors: Record<string, string>;
  onChange: (draft: Draft) => void;
}) {
  const noTemplate = model?.chat_template === false;
  const set = (changes: Partial<Draft>) => onChange({ ...draft, ...changes });
  return (
    <div className="stack">
      <WizardField
        label="Prompt format"
        help="Raw: each task's prompt as written. Chat: inside the model's chat template, generation stopping at its end of turn and the answer read after any <think> section. Evaluation and serving use the same."
        error={errors["config.prompt_format.kind"] ?? errors["config.prompt_format"]}
      >
        {(control) => (
          <select {...control} className="select ex-wide" value={draft.promptFormat} onChange={(e) => set({ promptFormat: e.target.value === "chat" ? "chat" : "raw" })}>
            <option value="raw">Raw prompt</option>
            <option value="chat">Chat template{noTemplate ? " (this model has no chat template)" : ""}</option>
          </select>
        )}
      </WizardField>
      {draft.promptFormat === "chat" && noTemplate && (
        <div className="alert alert-warning" role="status">
          {model.name}'s tokenizer has no chat template, so a run in chat format fails when it starts. Choose raw, or a model whose tokenizer_config.json carries one.
        </div>
      )}
      {draft.promptFormat === "chat" && (
        <WizardField label="System prompt" help="The system turn before each prompt; leave blank for none." error={errors["config.prompt_format.system_prompt"]}>
          {(control) => <textarea {...control} className="input ex-wide" rows={3} value={draft.systemPrompt} onChange={(e) => set({ systemPrompt: e.target.value })} />}
        </WizardField>
      )}
      <div className="ex-grid" role="group" aria-label="LoRA">
        <WizardField label="LoRA rank" help="0 trains every weight; above 0 trains low-rank adapters on the frozen model (8 to 64 is usual)." error={errors["config.lora.rank"]}>
          {(control) => <input {...control} className="input" inputMode="numeric" value={draft.loraRank} onChange={(e) => set({ loraRank: e.target.value })} />}
        </WizardField>
        {draft.loraRank.trim() !== "0" && (
          <>
            <WizardField label="LoRA alpha" help="An adapter's update is scaled by alpha / rank." error={errors["config.lora.alpha"]}>
              {(control) => <input {...control} className="input" inputMode="numeric" value={draft.loraAlpha} onChange={(e) => set({ loraAlpha: e.target.value })} />}
            </WizardField>
            <WizardField label="LoRA dropout" help="Dropout on each adapter's input while training (0 to below 1)." error={errors["config.lora.dropout"]}>
              {(control) => <input {...control} className="input" inputMode="decimal" value={draft.loraDropout} onChange={(e) => set({ loraDropout: e.target.value })} />}
            </WizardField>
            <WizardField
              label="LoRA target modules"
              help="Linear layers to adapt, comma-separated; blank: every attention and MLP projection of the architecture."
              error={errors["config.lora.target_modules"]}
            >
              {(control) => <input {...control} className="input" placeholder="q_proj, v_proj" value={draft.loraTargets} onChange={(e) => set({ loraTargets: e.target.value })} />}
            </WizardField>
          </>
        )}
      </div>
    </div>
  );
}
