import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { canary, deployment, modelVersion, servedRequest } from "../testing/fixtures";

const MODEL = {
  id: 9,
  team: "core",
  name: "sorter",
  description: "",
  aliases: [],
  latest_version: 2,
  created_by: "ada",
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

const DETAIL_ROUTES = {
  "GET /api/v1/canaries/": { body: paginated([]) },
  "GET /api/v1/deployments/sorter/requests/": { body: paginated([servedRequest()]) },
  "GET /api/v1/model-versions/": { body: paginated([modelVersion(1, 1), modelVersion(2, 2)]) },
};

describe("Deployments list", () => {
  it("lists deployments with status, version and canary, and creates one", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/deployments/": { body: paginated([deployment({ canary: canary() })]) },
      "GET /api/v1/registered-models/": { body: paginated([MODEL]) },
      "POST /api/v1/deployments/": { status: 201, body: deployment() },
      "GET /api/v1/deployments/sorter/": { body: deployment() },
      ...DETAIL_ROUTES,
    });
    const { router } = renderApp("/deployments");
    expect(await screen.findByRole("heading", { name: "Deployments", level: 1 })).toBeInTheDocument();
    const table = await screen.findByRole("table", { name: "Deployments" });
    expect(within(table).getByRole("link", { name: "Sorter" })).toHaveAttribute("href", "/deployments/sorter");
    expect(table).toHaveTextContent("serving");
    expect(table).toHaveTextContent("sorter v1");
    expect(table).toHaveTextContent("running");
    expect(table).toHaveTextContent("25%");

    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Sorter" } });
    expect(screen.getByLabelText("Slug")).toHaveValue("sorter");
    await screen.findByRole("option", { name: "sorter" });
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "9" } });
    fireEvent.click(screen.getByRole("button", { name: "Create deployment" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({
        team: "core",
        name: "Sorter",
        slug: "sorter",
        registered_model: 9,
      }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe("/deployments/sorter"));
    expect(await screen.findByRole("heading", { name: "Sorter", level: 1 })).toBeInTheDocument();
  });

  it("says when there is none, and shows a refusal next to its field", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/deployments/": { body: paginated([]) },
      "GET /api/v1/registered-models/": { body: paginated([MODEL]) },
      "POST /api/v1/deployments/": {
        status: 409,
        body: { errors: [{ field: "registered_model", code: "conflict", message: "sorter has no production alias" }] },
      },
    });
    renderApp("/deployments");
    expect(await screen.findByText("No deployments yet")).toBeInTheDocument();
    expect(screen.getAllByRole("heading", { name: /deployments/i })).toHaveLength(1);
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "x" } });
    await screen.findByRole("option", { name: "sorter" });
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: "9" } });
    fireEvent.click(screen.getByRole("button", { name: "Create deployment" }));
    expect(await screen.findByText("sorter has no production alias")).toBeInTheDocument();
    expect(screen.getByLabelText("Model")).toHaveAttribute("aria-invalid", "true");
  });
});
