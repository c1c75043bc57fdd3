// The prompt format a version was trained with, as frozen at registration.
import type { ModelVersion } from "@/lib/registry";

export function VersionFormat({ format }: { format: ModelVersion["format"] }) {
  return (
    <dl className="rg-format" aria-label="Training format">
      <dt>Chat format</dt>
      <dd>{format.chat_template === null ? "raw prompt, no chat template" : format.chat_template}</dd>
      <dt>Special tokens</dt>
      <dd>{format.add_special_tokens ? "added by the tokenizer" : "none added"}</dd>
      {format.families.map((family) => (
        <div key={family.family} className="rg-format-family">
          <dt>{family.family}</dt>
          <dd>
            template <code>{family.prompt_template ?? "(the dataset's prompts as written)"}</code>, answer by{" "}
            <code>{family.extract}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
