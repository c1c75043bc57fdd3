import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { ARITHMETIC, FAMILY } from "../testing/fixtures";

describe("Task families list", () => {
  it("lists families with their latest version and counts", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
      "GET /api/v1/families/": { body: paginated([FAMILY]) },
    });
    renderApp("/task-families");
    const link = await screen.findByRole("link", { name: "Arith" }, { timeout: 5000 });
    expect(link).toHaveAttribute("href", "/task-families/3");
    const row = link.closest("tr");
    expect(row).toHaveTextContent("v2");
    expect(row).toHaveTextContent("20");
    expect(row).toHaveTextContent("17");
  });

  it("answers the API's name, /families, by going to /task-families", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
      "GET /api/v1/families/": { body: paginated([FAMILY]) },
    });
    const { router } = renderApp("/families?archived=true");
    expect(await screen.findByRole("link", { name: "Arith" }, { timeout: 5000 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/task-families");
    expect(router.state.location.search).toBe("?archived=true");
  });

  it("hides archived families until asked to show them", async () => {
    const archived = { ...FAMILY, id: 4, name: "Old sums", archived_at: "2026-01-05T10:00:00Z" };
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
      "GET /api/v1/families/": (request) => ({
        body: paginated(request.search.includes("archived=true") ? [archived] : [FAMILY]),
      }),
    });
    renderApp("/task-families");
    const user = userEvent.setup();
    expect(await screen.findByRole("link", { name: "Arith" }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Old sums" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("checkbox", { name: "Show archived" }));
    expect(await screen.findByRole("link", { name: "Old sums" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Archived families" })).toBeInTheDocument();
    expect(requests.at(-1)?.search).toContain("archived=true");
  });

  it("creates a family from the kind's params form and opens it", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
      "GET /api/v1/families/": { body: paginated([]) },
      "POST /api/v1/families/": ({ body }) => ({ status: 201, body: { ...FAMILY, ...(body as object), id: 9 } }),
      "GET /api/v1/families/9/": { body: { ...FAMILY, id: 9 } },
      "GET /api/v1/families/9/versions/": { body: paginated([]) },
    });
    const { router } = renderApp("/task-families");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "New family" }, { timeout: 5000 }));
    expect(await screen.findByText(ARITHMETIC.description)).toBeInTheDocument();
    expect(screen.getByLabelText("Difficulty levels 1, 2, 3")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Name"), "Sums");
    await user.click(screen.getByRole("checkbox", { name: "*" }));
    await user.click(screen.getByRole("checkbox", { name: "Allow negative" }));
    await user.clear(screen.getByLabelText("Held-out fraction"));
    await user.type(screen.getByLabelText("Held-out fraction"), "0.2");
    await user.click(screen.getByRole("button", { name: "Create family" }));

    await waitFor(() => expect(router.state.location.pathname).toBe("/task-families/9"));
    const post = requests.find((r) => r.method === "POST");
    expect(post?.search).toBe("?team=core");
    expect(post?.body).toMatchObject({
      name: "Sums",
      kind: "arithmetic",
      params: { ops: ["+", "-"], allow_negative: false },
      held_out_fraction: 0.2,
    });
  });

  it("shows the server's message next to the field it names", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [ARITHMETIC] },
      "GET /api/v1/families/": { body: paginated([]) },
      "POST /api/v1/families/": {
        status: 400,
        body: { errors: [{ field: "name", code: "unique", message: "A family with this name exists." }] },
      },
    });
    renderApp("/task-families");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "New family" }, { timeout: 5000 }));
    await user.type(await screen.findByLabelText("Name"), "Arith");
    await user.click(screen.getByRole("button", { name: "Create family" }));
    expect(await screen.findByText("A family with this name exists.")).toHaveAttribute("id", "family-name-error");
    expect(screen.getByLabelText("Name")).toHaveAttribute("aria-invalid", "true");
  });
});
