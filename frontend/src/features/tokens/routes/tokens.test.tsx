import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { ApiToken } from "../api/get-tokens";

const EXISTING: ApiToken = {
  id: 7,
  name: "laptop",
  prefix: "cru_ab12",
  team: "core",
  created_at: "2026-01-01T10:00:00Z",
  expires_at: null,
  last_used_at: null,
  revoked_at: null,
};

function tokensApi() {
  let tokens = [EXISTING];
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/tokens/": () => ({ body: paginated(tokens) }),
    "POST /api/v1/tokens/": ({ body }) => {
      const input = body as { name: string; team?: string | null };
      const created = { ...EXISTING, id: 8, name: input.name, team: input.team ?? null, prefix: "cru_cd34" };
      tokens = [...tokens, created];
      return { status: 201, body: { ...created, token: "cru_cd34_s3cret-value" } };
    },
    "DELETE /api/v1/tokens/7/": () => {
      tokens = tokens.map((t) => (t.id === 7 ? { ...t, revoked_at: "2026-02-01T00:00:00Z" } : t));
      return { status: 204 };
    },
  });
}

describe("API tokens", () => {
  it("shows a new token's secret once, until it is dismissed", async () => {
    const { requests } = tokensApi();
    renderApp("/settings/tokens");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Name"), "ci");
    await user.selectOptions(screen.getByLabelText("Team"), "evals");
    await user.clear(screen.getByLabelText("Expires in (days)"));
    await user.type(screen.getByLabelText("Expires in (days)"), "30");
    await user.click(screen.getByRole("button", { name: "Create token" }));

    expect(await screen.findByLabelText("New token secret")).toHaveTextContent("cru_cd34_s3cret-value");
    expect(screen.getByText(/shown only once/)).toBeInTheDocument();
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ name: "ci", team: "evals", days: 30 });
    expect(await screen.findByRole("cell", { name: "ci" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "I have copied it" }));
    expect(screen.queryByLabelText("New token secret")).not.toBeInTheDocument();
    expect(screen.queryByText("cru_cd34_s3cret-value")).not.toBeInTheDocument();
  });

  it("leaves the expiry to the server when the field is empty, never asking for none", async () => {
    const { requests } = tokensApi();
    renderApp("/settings/tokens");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Name"), "ci");
    await user.clear(screen.getByLabelText("Expires in (days)"));
    await user.click(screen.getByRole("button", { name: "Create token" }));

    await screen.findByLabelText("New token secret");
    const body = requests.find((r) => r.method === "POST")?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("days");
  });

  it("revokes a token only after confirmation", async () => {
    const { requests } = tokensApi();
    renderApp("/settings/tokens");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Revoke laptop" }));
    const dialog = screen.getByRole("alertdialog", { name: /Revoke “laptop”/ });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(requests.some((r) => r.method === "DELETE")).toBe(false);

    await user.click(screen.getByRole("button", { name: "Revoke laptop" }));
    await user.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Revoke token" }));

    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(requests.some((r) => r.method === "DELETE" && r.path === "/api/v1/tokens/7/")).toBe(true);
    expect(await screen.findByText("Revoked")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Revoke laptop" })).not.toBeInTheDocument();
  });
});
