// A model some running worker on a queue can load, as a select (the experiment wizard's choice):
// a typed name could name a model no worker has. A value given from outside (a link to
// "evaluate this model") that no worker offers stays chosen and says so.
import { useAvailableModels, type WorkerQueue } from "@/lib/worker-models";

export type ModelSelectProps = {
  queue: WorkerQueue;
  /** The chosen model's name, or "" for none. */
  value: string;
  onChange: (model: string) => void;
  /** Props for the select (its id, aria-invalid, aria-describedby). */
  control?: { id?: string; "aria-invalid"?: true; "aria-describedby"?: string };
  className?: string;
};

export function ModelSelect({ queue, value, onChange, control, className = "select" }: ModelSelectProps) {
  const models = useAvailableModels(queue);
  const offered = models.data?.models ?? [];
  const placeholder = models.isPending ? "Loading models…" : offered.length ? "Choose a model…" : "No running worker offers a model";
  return (
    <select {...control} className={className} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{placeholder}</option>
      {value && !offered.some((m) => m.name === value) && <option value={value}>{value} (no running worker offers it)</option>}
      {offered.map((m) => (
        <option key={m.name} value={m.name}>
          {m.name}
          {m.builtin ? " (built in)" : ""}
        </option>
      ))}
    </select>
  );
}
