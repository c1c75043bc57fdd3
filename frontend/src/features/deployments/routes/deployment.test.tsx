import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { canary, deployment, modelVersion, servedRequest } from "../testing/fixtures";

afterEach(() => vi.unstubAllGlobals());

const ANSWER = {
  id: "00000000-0000-0000-0000-000000000009",
  completion: "1 2 3",
  side: "candidate",
  version: { id: 2, number: 2, label: "sorter v2" },
  output_tokens: 5,
  truncated: false,
  queue_ms: 3,
  generation_ms: 40,
  format_warnings: ["the prompt does not end with '='"],
  verification: "pending",
};

/** The server's side: the deployment as the last change left it. */
function routes(extra = {}) {
  let current = deployment();
  const change = (next: ReturnType<typeof deployment>, status = 200) => () => {
    current = next;
    return { status, body: status === 201 ? next.canary : next };
  };
  return {
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/deployments/sorter/": () => ({ body: current }),
    "GET /api/v1/canaries/": { body: paginated([canary({ id: 2, state: "rolled_back", reason: "the candidate failed more" })]) },
    "GET /api/v1/deployments/sorter/requests/": {
      body: paginated([servedRequest(), servedRequest({ id: "b", side: "candidate", shadow: true, passed: false, completion: "3 2 1" })]),
    },
    "GET /api/v1/model-versions/": { body: paginated([modelVersion(1, 1), modelVersion(2, 2)]) },
    "POST /api/v1/deployments/sorter/generate/": { body: ANSWER },
    "POST /api/v1/deployments/sorter/canary/": change(deployment({ canary: canary({ step: 0, share: 5 }) }), 201),
    "POST /api/v1/deployments/sorter/stop/": change(deployment({ stopped: true, status: "stopped", replicas: [] })),
    "PATCH /api/v1/deployments/sorter/": change(deployment({ max_new_tokens: 64 })),
    ...extra,
  };
}

describe("Deployment page", () => {
  it("shows status, replicas, past canaries and the request log", async () => {
    const { requests } = mockApi(routes());
    renderApp("/deployments/sorter");
    expect(await screen.findByRole("heading", { name: "Sorter", level: 1 })).toBeInTheDocument();
    expect(screen.getByLabelText("Deployment status")).toHaveTextContent("serving");
    const replicas = screen.getByRole("table", { name: "Replicas" });
    expect(replicas).toHaveTextContent("production");
    expect(replicas).toHaveTextContent("ready");
    expect(replicas).toHaveTextContent("sorter v1");
    expect(replicas).toHaveTextContent("gpu-1");
    expect(await screen.findByRole("link", { name: "Canary 2" })).toHaveAttribute("href", "/canaries/2");
    expect(screen.getByText("rolled back")).toBeInTheDocument();
    const log = await screen.findByRole("table", { name: "Recent requests" });
    for (const name of [/recent requests/i, /replicas/i, /try it/i, /^prompt/i, /^candidate/i, /steps \(%\)/i]) {
      expect(screen.getAllByLabelText(name)).toHaveLength(1);
    }
    const rows = within(log).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("✓ passed");
    expect(rows[1]).toHaveTextContent("42 ms");
    expect(rows[2]).toHaveTextContent("shadow");
    expect(rows[2]).toHaveTextContent("✗ failed");

    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(await screen.findByRole("button", { name: "Start" })).toBeInTheDocument();
    // Stopped, it runs no canary: "Start" is the only button of that name.
    expect(screen.getAllByRole("button", { name: /start/i })).toHaveLength(1);
    expect(screen.getByLabelText("Deployment status")).toHaveTextContent("stopped");
    expect(requests.some((r) => r.method === "POST" && r.path.endsWith("/stop/"))).toBe(true);
  });

  it("answers a prompt in Try it", async () => {
    const { requests } = mockApi(routes());
    renderApp("/deployments/sorter");
    const tryIt = await screen.findByRole("region", { name: "Try it" });
    fireEvent.change(within(tryIt).getByLabelText("Prompt"), { target: { value: "sort 3 1 2=" } });
    fireEvent.change(within(tryIt).getByLabelText("Family"), { target: { value: "digits" } });
    fireEvent.click(within(tryIt).getByRole("button", { name: "Generate" }));
    const answer = await within(tryIt).findByLabelText("Answer");
    expect(answer).toHaveTextContent("1 2 3");
    expect(answer).toHaveTextContent("candidate");
    expect(answer).toHaveTextContent("sorter v2");
    expect(answer).toHaveTextContent("43 ms");
    expect(within(answer).getByRole("list", { name: "Format warnings" })).toHaveTextContent("does not end with '='");
    expect(requests.find((r) => r.path.endsWith("/generate/"))?.body).toEqual({ prompt: "sort 3 1 2=", family: "digits" });
  });

  it("shows why a prompt was not answered and when to retry", async () => {
    mockApi(routes());
    const fetchMock = vi.mocked(globalThis.fetch);
    const passThrough = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) => {
      if (String(input).endsWith("/generate/")) {
        return new Response(JSON.stringify({ detail: "the queue is full" }), { status: 503, headers: { "Retry-After": "5" } });
      }
      return passThrough(input, init);
    });
    renderApp("/deployments/sorter");
    const tryIt = await screen.findByRole("region", { name: "Try it" });
    fireEvent.change(within(tryIt).getByLabelText("Prompt"), { target: { value: "x" } });
    fireEvent.click(within(tryIt).getByRole("button", { name: "Generate" }));
    const alert = await within(tryIt).findByRole("alert");
    expect(alert).toHaveTextContent("the queue is full");
    expect(alert).toHaveTextContent("Retry after 5 s.");
  });

  it("starts a canary of another version with its steps and guardrails", async () => {
    const { requests } = mockApi(routes());
    renderApp("/deployments/sorter");
    const candidate = await screen.findByLabelText("Candidate");
    await within(candidate).findByRole("option", { name: "sorter v2" });
    expect(within(candidate).queryByRole("option", { name: "sorter v1" })).toBeNull();
    expect(screen.getByLabelText("Steps (%)")).toHaveValue("5, 25, 50");
    expect(screen.getByLabelText("min_samples")).toHaveValue(40);
    expect(screen.getByLabelText("max_length_ratio")).toHaveValue(1.5);
    fireEvent.click(screen.getByLabelText("Shadow"));
    expect(screen.getByLabelText("Steps (%)")).toHaveValue("100");
    fireEvent.click(screen.getByLabelText("Split"));
    fireEvent.change(screen.getByLabelText("Steps (%)"), { target: { value: "10, 5" } });
    expect(screen.getByText(/must rise/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Start canary" })).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Steps (%)"), { target: { value: "10, 50" } });
    fireEvent.change(screen.getByLabelText("min_samples"), { target: { value: "20" } });
    fireEvent.click(screen.getByRole("button", { name: "Start canary" }));
    await waitFor(() =>
      expect(requests.find((r) => r.path.endsWith("/canary/"))?.body).toEqual({
        candidate: 2,
        mode: "split",
        steps: [10, 50],
        guardrails: {
          min_samples: 20,
          max_samples: 400,
          max_pass_drop: 0.05,
          max_error_rate: 0.05,
          max_latency_p95_ratio: 1.5,
          max_length_ratio: 1.5,
        },
      }),
    );
    expect(await screen.findByRole("link", { name: "Open canary" })).toHaveAttribute("href", "/canaries/3");
    expect(screen.queryByRole("button", { name: "Start canary" })).toBeNull();
  });

  it("edits the settings, sending only what changed", async () => {
    const { requests } = mockApi(routes());
    renderApp("/deployments/sorter");
    fireEvent.click(await screen.findByRole("button", { name: "Edit settings" }));
    fireEvent.change(screen.getByLabelText("Max new tokens"), { target: { value: "64" } });
    fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await waitFor(() => expect(requests.find((r) => r.method === "PATCH")?.body).toEqual({ max_new_tokens: 64 }));
    expect(await screen.findByLabelText("Settings")).toHaveTextContent("Max new tokens64");
  });
});
