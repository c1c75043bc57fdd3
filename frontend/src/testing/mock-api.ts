// A fetch stand-in for component tests: routes "METHOD /path" to canned JSON replies
// and records every request so tests can assert what was sent.
import { vi } from "vitest";

export type MockReply = { status?: number; body?: unknown };
export type MockHandler = MockReply | ((request: RecordedRequest) => MockReply | Promise<MockReply>);
export type RecordedRequest = {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: unknown;
};

export function mockApi(routes: Record<string, MockHandler>) {
  const requests: RecordedRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), "http://localhost");
    const method = (init.method ?? "GET").toUpperCase();
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      search: url.search,
      headers: (init.headers ?? {}) as Record<string, string>,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) {
      return new Response(JSON.stringify({ errors: [{ field: null, code: "not_found", message: "Not found." }] }), {
        status: 404,
      });
    }
    const reply = typeof handler === "function" ? await handler(request) : handler;
    const status = reply.status ?? 200;
    const body = reply.body === undefined || status === 204 ? null : JSON.stringify(reply.body);
    return new Response(body, { status, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return { requests, fetchMock };
}

export const ME = {
  id: 1,
  username: "ada",
  email: "ada@example.com",
  is_staff: false,
  teams: [
    { id: 1, slug: "core", name: "Core", role: "admin" as const },
    { id: 2, slug: "evals", name: "Evals", role: "editor" as const },
  ],
};

export function paginated<T>(results: T[]) {
  return { count: results.length, next: null, previous: null, results };
}
