// "Try it": a prompt to the deployment, answered by production or (in a split canary) the
// candidate; with a family and a task the answer is verified and the verdict lands in the log.
import { useId, useState, type FormEvent } from "react";

import { errorMessages } from "@/components/ui/error-message";

import { GenerateError, useGenerate } from "../api/generate";
import type { GenerateAnswer } from "../api/types";
import { formatMs } from "../lib/format";

function Answer({ answer }: { answer: GenerateAnswer }) {
  return (
    <div className="dp-answer" aria-label="Answer" role="group">
      <pre className="dp-completion" aria-label="Completion">
        {answer.completion}
      </pre>
      <div className="dp-row subtle">
        <span className={`badge ${answer.side === "candidate" ? "badge-accent" : "badge-success"}`}>{answer.side}</span>
        <span>{answer.version.label}</span>
        <span>· {formatMs(answer.queue_ms + answer.generation_ms)}</span>
        <span>
          (queue {formatMs(answer.queue_ms)}, generation {formatMs(answer.generation_ms)})
        </span>
        <span>· {answer.output_tokens} tokens{answer.truncated ? ", truncated" : ""}</span>
        <span>· verification {answer.verification}</span>
      </div>
      {answer.format_warnings.length > 0 && (
        <ul className="dp-warnings" aria-label="Format warnings">
          {answer.format_warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function GenerateFailure({ error }: { error: unknown }) {
  const retry = error instanceof GenerateError ? error.retryAfter : null;
  return (
    <div className="alert alert-error" role="alert">
      {errorMessages(error).map((m) => (
        <div key={m}>{m}</div>
      ))}
      {retry !== null && <div>Retry after {retry} s.</div>}
    </div>
  );
}

export function TryIt({ slug }: { slug: string }) {
  const id = useId();
  const generate = useGenerate(slug);
  const [prompt, setPrompt] = useState("");
  const [family, setFamily] = useState("");
  const [task, setTask] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    generate.mutate({
      prompt,
      ...(family.trim() ? { family: family.trim() } : {}),
      ...(task.trim() ? { task: task.trim() } : {}),
    });
  }

  return (
    <section className="card" role="region" aria-label="Try it">
      <div className="card-header">
        <div>
          <h2>Try it</h2>
          <div className="card-description">
            POST /api/v1/deployments/{slug}/generate/ — with a family and a task hash the answer is verified.
          </div>
        </div>
      </div>
      <form className="card-body dp-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-prompt`}>Prompt</label>
          <textarea id={`${id}-prompt`} className="dp-textarea" value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor={`${id}-family`}>Family</label>
            <input id={`${id}-family`} className="input" value={family} onChange={(e) => setFamily(e.target.value)} placeholder="optional" />
          </div>
          <div className="field">
            <label htmlFor={`${id}-task`}>Task</label>
            <input id={`${id}-task`} className="input" value={task} onChange={(e) => setTask(e.target.value)} placeholder="optional: content hash" />
          </div>
        </div>
        <div>
          <button type="submit" className="btn btn-primary" disabled={!prompt || generate.isPending}>
            Generate
          </button>
          {generate.isPending && <span className="subtle"> Waiting for the answer…</span>}
        </div>
        {generate.error && <GenerateFailure error={generate.error} />}
        {generate.data && !generate.error && <Answer answer={generate.data} />}
      </form>
    </section>
  );
}
