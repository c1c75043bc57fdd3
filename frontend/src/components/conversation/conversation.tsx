import type { ReactNode } from "react";

import "./conversation.css";

/** A tool call in the OpenAI chat shape: the tool's name and its arguments as JSON text. */
export type ConversationToolCall = { id?: string; type?: string; function: { name: string; arguments: string } };

/** One turn's verdict: the per-turn error (null when clean), what the environment noted, and,
 * where the whole episode was judged on this message, whether it passed. */
export type TurnVerdict = { error?: string | null; info?: Record<string, unknown>; passed?: boolean };

/** A message of a multi-turn episode: what the playground returns and rollouts may carry. */
export type ConversationMessage = {
  role: string;
  content: string;
  tool_calls?: ConversationToolCall[];
  tool_call_id?: string;
  name?: string;
  verdict?: TurnVerdict | null;
};

/** The list a rollout or an answer carries, when it is one: anything else is not a conversation. */
export function asConversation(value: unknown): ConversationMessage[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const ok = value.every((m) => typeof m === "object" && m !== null && typeof (m as ConversationMessage).role === "string");
  return ok ? (value as ConversationMessage[]) : null;
}

const ROLE_LABELS: Record<string, string> = { system: "System", user: "User", assistant: "Assistant", tool: "Tool" };

function prettyArguments(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") {
      const entries = Object.entries(parsed as Record<string, unknown>);
      // A single text argument (a program, a query) reads best as itself.
      if (entries.length === 1 && typeof entries[0]![1] === "string") return entries[0]![1] as string;
    }
    return JSON.stringify(parsed, null, 2);
  } catch {
    return text;
  }
}

function TurnBadge({ verdict }: { verdict: TurnVerdict }) {
  if (verdict.passed !== undefined) {
    return <span className={`badge ${verdict.passed ? "badge-success" : "badge-danger"}`}>{verdict.passed ? "passed" : "failed"}</span>;
  }
  if (verdict.error) return <span className="badge badge-danger cv-turn-error">{verdict.error}</span>;
  return <span className="badge badge-success">clean turn</span>;
}

function Message({ message, turn, extra }: { message: ConversationMessage; turn: number | null; extra?: ReactNode }) {
  const label = message.role === "tool" ? `Tool${message.name ? ` · ${message.name}` : ""}` : (ROLE_LABELS[message.role] ?? message.role);
  return (
    <li className={`cv-message cv-${message.role}`} aria-label={turn !== null ? `Turn ${turn}` : label} data-role={message.role}>
      <div className="cv-head">
        <strong>{label}</strong>
        {turn !== null && <span className="subtle">turn {turn}</span>}
        {message.tool_call_id && <span className="mono subtle">answers {message.tool_call_id}</span>}
        {message.verdict && <TurnBadge verdict={message.verdict} />}
      </div>
      {message.content && <pre className="cv-text">{message.content}</pre>}
      {message.tool_calls?.map((call, i) => (
        <div key={call.id || i} className="cv-call" aria-label={`Call of ${call.function.name}`}>
          <div className="subtle">
            calls <strong>{call.function.name}</strong> {call.id && <span className="mono">{call.id}</span>}
          </div>
          <pre className="cv-text">{prettyArguments(call.function.arguments)}</pre>
        </div>
      ))}
      {extra}
    </li>
  );
}

/** What a page adds below an assistant turn (the inspector: the turn's flag): called with the
 * message's index in the episode and the turn's number. */
export type TurnExtra = (index: number, turn: number) => ReactNode;

/**
 * An episode as a conversation: the opening (system and task), then each assistant turn with
 * its tool calls and per-turn verdict, the tools' results and the environment's feedback.
 * `hideOpening` drops system and first user messages where the page shows the prompt already;
 * `turnExtra` adds something below each assistant turn.
 */
export function Conversation({
  messages,
  hideOpening = false,
  label = "Conversation",
  turnExtra,
}: {
  messages: ConversationMessage[];
  hideOpening?: boolean;
  label?: string;
  turnExtra?: TurnExtra;
}) {
  const firstAssistant = messages.findIndex((m) => m.role === "assistant");
  let turn = 0;
  const shown = messages.map((message, index) => {
    const isTurn = message.role === "assistant";
    if (isTurn) turn += 1;
    return { message, index, turn: isTurn ? turn : null };
  });
  const hiding = hideOpening && firstAssistant > 0;
  const visible = hiding ? shown.slice(firstAssistant) : shown;
  // The page shows the task; the system message (the tools the model was offered) stays one
  // click away rather than gone.
  const system = hiding ? shown.slice(0, firstAssistant).filter(({ message }) => message.role === "system") : [];
  return (
    <ol className="cv" aria-label={label}>
      {system.length > 0 && (
        <li className="cv-opening">
          <details>
            <summary>System message: the instructions and tools the model was offered</summary>
            {system.map(({ message, index }) => (
              <pre key={index} className="cv-text">
                {message.content}
              </pre>
            ))}
          </details>
        </li>
      )}
      {visible.map(({ message, index, turn: n }) => (
        <Message key={index} message={message} turn={n} extra={n !== null && turnExtra ? turnExtra(index, n) : undefined} />
      ))}
    </ol>
  );
}
