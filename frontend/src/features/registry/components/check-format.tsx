// "Check a serving format": what a request or a deployment would do, compared with the format
// the version was trained with; each drift is said in words. Left empty: not compared.
import { useId, useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";

import { useCheckFormat, type ServedFormat } from "../api/check-format";
import type { ModelVersion } from "@/lib/registry";

type Chat = "" | "raw" | "named";

function servedFormat(family: string, template: string, chat: Chat, chatName: string, extract: string): ServedFormat {
  const body: ServedFormat = {};
  if (family) body.family = family;
  if (template) body.prompt_template = template;
  if (chat === "raw") body.chat_template = null;
  if (chat === "named" && chatName.trim()) body.chat_template = chatName.trim();
  if (extract.trim()) body.extract = extract.trim();
  return body;
}

export function CheckFormat({ version }: { version: ModelVersion }) {
  const id = useId();
  const check = useCheckFormat(version.id);
  const families = version.format.families;
  const [family, setFamily] = useState(families.length > 1 ? (families[0]?.family ?? "") : "");
  const [template, setTemplate] = useState("");
  const [chat, setChat] = useState<Chat>("");
  const [chatName, setChatName] = useState("");
  const [extract, setExtract] = useState("");
  const result = check.data;
  return (
    <details className="rg-check">
      <summary>Check a serving format</summary>
      <form
        className="stack"
        aria-label={`Check a serving format for v${version.number}`}
        onSubmit={(e) => {
          e.preventDefault();
          check.mutate(servedFormat(family, template, chat, chatName, extract));
        }}
      >
        {families.length > 1 && (
          <label htmlFor={`${id}-family`}>
            Family{" "}
            <select id={`${id}-family`} value={family} onChange={(e) => setFamily(e.target.value)}>
              {families.map((f) => (
                <option key={f.family} value={f.family}>{f.family}</option>
              ))}
            </select>
          </label>
        )}
        <label htmlFor={`${id}-template`}>Prompt template</label>
        <textarea id={`${id}-template`} rows={2} value={template} onChange={(e) => setTemplate(e.target.value)} />
        <div className="rg-row">
          <label htmlFor={`${id}-chat`}>Chat format</label>
          <select id={`${id}-chat`} value={chat} onChange={(e) => setChat(e.target.value as Chat)}>
            <option value="">not stated</option>
            <option value="raw">raw prompt, no chat template</option>
            <option value="named">a chat template…</option>
          </select>
          {chat === "named" && (
            <input aria-label="Chat template" placeholder="e.g. chatml" value={chatName} onChange={(e) => setChatName(e.target.value)} />
          )}
          <label htmlFor={`${id}-extract`}>Answer extraction</label>
          <input id={`${id}-extract`} placeholder="e.g. final_answer" value={extract} onChange={(e) => setExtract(e.target.value)} />
          <button type="submit" className="btn btn-sm" disabled={check.isPending}>
            Check
          </button>
        </div>
      </form>
      {check.error && <ErrorMessage error={check.error} />}
      {result && (
        <div role="status" aria-label="Format check">
          {result.matches ? (
            <span className="badge badge-success">Matches the training format</span>
          ) : (
            <ul>
              {result.differences.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </details>
  );
}
