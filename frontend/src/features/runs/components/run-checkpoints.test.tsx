import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { CHECKPOINT, METRICS, RUN } from "../testing/fixtures";

const families = [{ pool_version: 4, verifier_version: 6, weight: 1, levels: null, initial: null }];

function job(id: number, subject: string) {
  return { id, subject, state: "queued", families: [], progress: 0 };
}

describe("Evaluate a checkpoint against the base model", () => {
  it("queues both evaluations on the experiment's families and links to the pending comparison", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/runs/7/": { body: RUN },
      "GET /api/v1/runs/7/metrics/": { body: METRICS },
      "GET /api/v1/runs/7/checkpoints/": { body: [CHECKPOINT] },
      "GET /api/v1/experiments/3/": { body: { id: 3, config: { model: "tiny-digit-sort", eval: { every: 0, families: [], max_tasks: 50 }, curriculum: { families } } } },
      "POST /api/v1/evaluations/": (request) => {
        const body = request.body as { checkpoint?: number };
        return { status: 202, body: body.checkpoint ? job(21, "run 2, step 40") : job(22, "tiny-digit-sort") };
      },
    });
    renderApp("/runs/7/checkpoints");
    const button = await screen.findByRole("button", { name: "Evaluate and compare with the base model" }, { timeout: 4000 });
    fireEvent.click(button);
    const status = (await screen.findByText(/^Queued evaluation/)).closest("[role=status]") as HTMLElement;
    expect(within(status).getByRole("link", { name: "compare them" })).toHaveAttribute("href", "/reports/new?candidate=21&baseline=22");
    expect(within(status).getByRole("link", { name: "#22" })).toHaveAttribute("href", "/evaluations/22");
    await waitFor(() =>
      expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([
        { team: "core", families: [{ pool_version: 4, verifier_version: 6 }], checkpoint: CHECKPOINT.id },
        { team: "core", families: [{ pool_version: 4, verifier_version: 6 }], model: "tiny-digit-sort", format_of_checkpoint: CHECKPOINT.id },
      ]),
    );
  });
});
