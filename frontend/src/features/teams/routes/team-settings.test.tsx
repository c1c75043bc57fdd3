import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const MEMBERS = paginated([
  { id: 1, username: "ada", role: "admin", joined_at: "2026-01-01T00:00:00Z" },
]);

describe("team settings", () => {
  it("shows the server's refusal when a non-admin adds a member, and stays signed in", async () => {
    window.localStorage.setItem("crucible.team", "evals");
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/teams/evals/members/": { body: MEMBERS },
      "POST /api/v1/teams/evals/members/": {
        status: 403,
        body: {
          errors: [
            { field: null, code: "permission_denied", message: "Only team admins can add members." },
          ],
        },
      },
    });
    const { router } = renderApp("/settings/team");
    const user = userEvent.setup();

    expect(await screen.findByText(/only admins can add or change members/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Remove ada" })).not.toBeInTheDocument();
    await user.type(screen.getByLabelText("Username"), "bob");
    await user.click(screen.getByRole("button", { name: "Add member" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Only team admins can add members.");
    expect(router.state.location.pathname).toBe("/settings/team");
  });

  it("lets an admin add a member with a role and creates teams", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/teams/core/members/": { body: MEMBERS },
      "POST /api/v1/teams/core/members/": ({ body }) => ({
        status: 201,
        body: { id: 2, joined_at: "2026-01-02T00:00:00Z", ...(body as object) },
      }),
      "POST /api/v1/teams/": { status: 201, body: { id: 3, name: "Safety", slug: "safety", role: "admin" } },
    });
    renderApp("/settings/team");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Username"), "bob");
    await user.selectOptions(screen.getByLabelText("Role"), "viewer");
    await user.click(screen.getByRole("button", { name: "Add member" }));
    expect(await screen.findByText("bob was added as Viewer.")).toBeInTheDocument();

    await user.type(screen.getByLabelText("Team name"), "Safety");
    await user.click(screen.getByRole("button", { name: "Create team" }));
    expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([
      { username: "bob", role: "viewer" },
      { name: "Safety" },
    ]);
    expect(window.localStorage.getItem("crucible.team")).toBe("safety");
  });
});
