import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderWithProviders } from "@/testing/render";

import { RegisterInModel } from "./register-in-model";

const MODEL = { id: 9, team: "core", name: "sorter", description: "", aliases: [], latest_version: 1,
  created_by: "ada", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }; // prettier-ignore

describe("Register in a model", () => {
  it("registers the checkpoint in the chosen model and links to its new version", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/": { body: paginated([MODEL, { ...MODEL, id: 10, name: "solver" }]) },
      "POST /api/v1/model-versions/": { status: 201, body: { id: 3, model: 10, model_name: "solver", number: 2 } },
    });
    renderWithProviders(<RegisterInModel checkpoint={11} />);
    const select = await screen.findByLabelText("Register in a model", {}, { timeout: 4000 });
    await screen.findByRole("option", { name: "solver" });
    fireEvent.change(select, { target: { value: "10" } });
    fireEvent.click(screen.getByRole("button", { name: "Register" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({ model: 10, checkpoint: 11 }),
    );
    expect(await screen.findByRole("link", { name: "solver v2" })).toHaveAttribute("href", "/registry/10");
  });

  it("points at the Models page when the team has no model yet", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/registered-models/": { body: paginated([]) },
    });
    renderWithProviders(<RegisterInModel checkpoint={11} />);
    expect(await screen.findByRole("link", { name: "Models" }, { timeout: 4000 })).toHaveAttribute("href", "/registry");
  });
});
