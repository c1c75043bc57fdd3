import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { EXPERIMENT } from "../testing/fixtures";

describe("Experiments list", () => {
  it("explains what an experiment is when there are none, with a way to make one", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/experiments/": { body: paginated([]) } });
    renderApp("/experiments");
    expect(await screen.findByText("No experiments yet", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText(/An experiment is a frozen training recipe/)).toBeInTheDocument();
    const buttons = screen.getAllByRole("link", { name: "New experiment" });
    expect(buttons.every((b) => b.getAttribute("href") === "/experiments/new")).toBe(true);
  });

  it("lists experiments with their algorithm, model and runs", async () => {
    mockApi({ "GET /api/v1/auth/me/": { body: ME }, "GET /api/v1/experiments/": { body: paginated([EXPERIMENT]) } });
    renderApp("/experiments");
    const link = await screen.findByRole("link", { name: "Digit sort" }, { timeout: 5000 });
    expect(link).toHaveAttribute("href", "/experiments/3");
    const row = link.closest("tr")!;
    expect(row).toHaveTextContent("GRPO");
    expect(row).toHaveTextContent("tiny-digit-sort");
    expect(screen.getByRole("link", { name: "1" })).toHaveAttribute("href", "/runs?experiment=3");
  });
});
