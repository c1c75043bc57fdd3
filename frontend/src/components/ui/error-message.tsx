import { isApiError } from "@/lib/api-client";

/** The messages of a failed request, as the server worded them. */
export function errorMessages(error: unknown): string[] {
  if (isApiError(error)) return error.errors.map((e) => e.message);
  if (error instanceof Error) return [error.message];
  return error ? ["Something went wrong."] : [];
}

export function ErrorMessage({ error }: { error: unknown }) {
  const messages = errorMessages(error);
  if (messages.length === 0) return null;
  return (
    <div className="alert alert-error" role="alert">
      {messages.map((message) => (
        <div key={message}>{message}</div>
      ))}
    </div>
  );
}
