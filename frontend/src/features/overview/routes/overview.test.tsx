import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const HEALTH = { status: "ok", checks: { database: { ok: true, ms: 1 } } };

function event(id: number, action: string, label: string, path: string | null) {
  return {
    id,
    actor: "ada",
    action,
    target_type: "tasks_app.thing",
    target_id: String(id),
    target_label: label,
    target_path: path,
    team: "core",
    created_at: new Date().toISOString(),
    changes: {},
  };
}

function summary(counts: Partial<Record<"families" | "pool_versions" | "verifiers" | "curricula", number>>) {
  return { team: "core", families: 0, pool_versions: 0, verifiers: 0, curricula: 0, ...counts };
}

function mockOverview(counts: Parameters<typeof summary>[0], events: unknown[] = []) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /healthz": { body: HEALTH },
    "GET /api/v1/audit/": { body: paginated(events) },
    "GET /api/v1/teams/core/summary/": { body: summary(counts) },
    "GET /api/v1/experiments/": { body: { ...paginated([]), count: 3 } },
    "GET /api/v1/runs/": { body: { ...paginated([]), count: 7 } },
  });
}

describe("overview", () => {
  it("tells what happened in sentences, linking names to pages that still exist", async () => {
    const { requests } = mockOverview({ families: 1 }, [
      event(6, "family.created", "Arithmetic", "/task-families/6"),
      event(3, "verifier.deleted", "Exact answer", null),
    ]);
    renderApp("/");

    const link = await screen.findByRole("link", { name: "Arithmetic" });
    expect(link).toHaveAttribute("href", "/task-families/6");
    const feed = screen.getByRole("region", { name: "Recent activity" });
    expect(feed).toHaveTextContent("ada created task family “Arithmetic”");
    expect(feed).toHaveTextContent("ada deleted verifier “Exact answer”");
    expect(within(feed).queryByRole("link", { name: "Exact answer" })).toBeNull();
    expect(feed).not.toHaveTextContent("tasks_app.thing");
    expect(requests.find((r) => r.path === "/api/v1/audit/")?.search).toContain("team=core");
  });

  it("counts what the team has made, linking each count to its list", async () => {
    const { requests } = mockOverview({ families: 2, pool_versions: 5, verifiers: 1, curricula: 1 });
    renderApp("/");

    const glance = await screen.findByRole("region", { name: "At a glance" });
    expect(await within(glance).findByRole("link", { name: "Pool versions" })).toHaveAttribute(
      "href",
      "/task-families",
    );
    await within(glance).findByText("7");
    const counts = within(glance)
      .getAllByRole("definition")
      .map((cell) => cell.textContent);
    expect(counts).toEqual(["2", "5", "1", "1", "3", "7"]);
    expect(within(glance).getByRole("link", { name: "Experiments" })).toHaveAttribute("href", "/experiments");
    expect(within(glance).getByRole("link", { name: "Runs" })).toHaveAttribute("href", "/runs");
    const work = requests.filter((r) => r.path === "/api/v1/experiments/" || r.path === "/api/v1/runs/");
    expect(work.map((r) => r.search)).toEqual(["?team=core&page_size=1", "?team=core&page_size=1"]);
    expect(within(glance).getByRole("link", { name: "Curricula" })).toHaveAttribute("href", "/curricula");
    expect(screen.queryByRole("region", { name: "First steps" })).toBeNull();
  });

  it("walks a new team through its first steps, ticking the ones done", async () => {
    mockOverview({ verifiers: 1 });
    renderApp("/");

    const steps = await screen.findByRole("region", { name: "First steps" });
    const items = within(steps).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      "Create a task family",
      "Freeze a pool version",
      "Build a verifier (done)",
      "Define a curriculum",
    ]);
    expect(within(steps).getByRole("link", { name: "Create a task family" })).toHaveAttribute(
      "href",
      "/task-families",
    );
    expect(within(steps).getByRole("link", { name: "Define a curriculum" })).toHaveAttribute(
      "href",
      "/curricula/new",
    );
  });
});
