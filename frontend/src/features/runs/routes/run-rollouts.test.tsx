import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

import { FakeUPlot } from "@/testing/fake-uplot";
import { ME, mockApi, paginated, type RecordedRequest } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { InspectedRollout, RolloutGroup } from "../api/get-rollout-groups";
import { METRICS, RUN, rollout } from "../testing/fixtures";
import { FakeSocket } from "../testing/fake-socket";

vi.mock("uplot", () => import("@/testing/fake-uplot"));

function inspected(sample: number, passed: boolean, changes: Partial<InspectedRollout> = {}): InspectedRollout {
  return { ...rollout(sample, passed), matches: true, flag: null, turn_flags: [], ...changes };
}

function group(rollouts: InspectedRollout[]): RolloutGroup {
  return { step: 12, group: 0, rollouts };
}

const KL = METRICS.points.kl!;
/** The run's metrics with a family's success and an error type: what the filters offer. */
const WITH_ERRORS = {
  ...METRICS,
  keys: [...METRICS.keys, "success/digits", "errors/wrong_answer"],
  points: { ...METRICS.points, "success/digits": KL, "errors/wrong_answer": KL },
};

const FLAG = { id: 5, status: "proposed", label: "good", verifier: 2, created_by: "ada", created_at: "2026-01-01T10:09:00Z", turn: null };

function inspectorApi(groups: (request: RecordedRequest) => RolloutGroup[], extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/runs/7/": { body: RUN },
    "GET /api/v1/runs/7/metrics/": { body: WITH_ERRORS },
    "GET /api/v1/runs/7/rollout-groups/": (request) => ({ body: paginated(groups(request)) }),
    ...extra,
  });
}

describe("Rollout inspector", () => {
  beforeEach(() => {
    FakeUPlot.reset();
    FakeSocket.all = [];
    vi.stubGlobal("WebSocket", FakeSocket);
  });

  it("shows a step's groups: the prompt, each completion's layered verdict, reward parts and advantage", async () => {
    const { requests } = inspectorApi(() => [group([inspected(0, true), inspected(1, false)])]);
    renderApp("/runs/7/rollouts?step=12");
    const card = await screen.findByRole("article", { name: "Step 12, group 0" }, { timeout: 5000 });
    expect(requests.find((r) => r.path === "/api/v1/runs/7/rollout-groups/")?.search).toContain("step=12");
    expect(screen.getByLabelText("Step")).toHaveValue("12");
    expect(card).toHaveTextContent("sort 312=");
    expect(card).toHaveTextContent("1 of 2 passed");
    const failed = within(card).getByText("321").closest("tr")!;
    expect(failed).toHaveTextContent("wrong_answer");
    expect(failed).toHaveTextContent("-0.87");
    expect(within(card).queryByRole("table", { name: "Layered verdict" })).toBeNull();
    fireEvent.click(within(failed).getByRole("button", { name: /2 layers/ }));
    // In a row of its own under the completion, as wide as the card.
    const layers = within(card).getByRole("table", { name: "Layered verdict" });
    expect(layers).toHaveTextContent("expected 123");
    expect(layers.closest("tr")?.previousElementSibling).toBe(failed);
    expect(within(failed).getByRole("button", { name: /2 layers/ })).toHaveAttribute("aria-expanded", "true");
    expect(card).toHaveTextContent("verifier version 9");
  });

  it("sends every filter to the API and keeps it in the URL", async () => {
    const { requests } = inspectorApi(() => [group([inspected(0, true, { matches: false }), inspected(1, false)])]);
    const { router } = renderApp("/runs/7/rollouts");
    await screen.findByRole("article", { name: "Step 12, group 0" }, { timeout: 5000 });
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText("Verdict"), "false");
    await user.selectOptions(screen.getByLabelText("Error type"), "wrong_answer");
    await user.type(screen.getByLabelText("Reward from"), "0.5");
    await user.type(screen.getByLabelText("Search"), "321");
    await waitFor(() => expect(requests.at(-1)?.search).toContain("search=321"));
    const search = requests.at(-1)!.search;
    expect(search).toContain("passed=false");
    expect(search).toContain("error_type=wrong_answer");
    expect(search).toContain("reward_min=0.5");
    expect(router.state.location.search).toContain("passed=false");
    // The group's other completions stay, dimmed: the advantage compares them all.
    const card = screen.getByRole("article", { name: "Step 12, group 0" });
    expect(within(card).getByText("123").closest("tr")).toHaveClass("is-inactive");
    expect(within(card).getByText("321").closest("tr")).toHaveClass("rn-match");
  });

  it("flags a wrong verdict as a proposed labelled example", async () => {
    let flagged = false;
    const { requests } = inspectorApi(() => [group([inspected(0, true), inspected(1, false, { flag: flagged ? FLAG : null })])], {
      "POST /api/v1/runs/7/rollouts/101/flag/": () => {
        flagged = true;
        return { status: 201, body: FLAG };
      },
    });
    renderApp("/runs/7/rollouts?step=12");
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Flag verdict of sample 1" }, { timeout: 5000 }));
    const form = screen.getByRole("form", { name: "Flag the verdict of sample 1" });
    expect(form).toHaveTextContent("a known good example (the verifier failed it)");
    await user.type(within(form).getByLabelText("Why (optional)"), "reversed on purpose");
    await user.click(within(form).getByRole("button", { name: "Send flag" }));
    expect(await screen.findByText("flagged: awaiting review")).toBeInTheDocument();
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ note: "reversed on purpose" });
    expect(screen.queryByRole("button", { name: "Flag verdict of sample 1" })).not.toBeInTheDocument();
  });

  it("shows a multi-turn rollout as its conversation: tool calls, results and per-turn verdicts", async () => {
    const messages = [
      { role: "user", content: "guess 1-15?" },
      { role: "assistant", content: "8", verdict: { error: null, info: { interval: [1, 7] } } },
      { role: "user", content: "<1-7?" },
      { role: "assistant", content: "x", verdict: { error: "invalid_move" } },
      { role: "user", content: "!1-7?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "python", arguments: '{"code": "print(4)"}' } }],
        verdict: { error: null },
      },
      { role: "tool", content: "4", tool_call_id: "c1", name: "python" },
    ];
    const episode = { ...inspected(0, false, { prompt: "guess 1-15?", completion: "8\nx" }), messages } as InspectedRollout;
    inspectorApi(() => [group([episode, inspected(1, true)])]);
    renderApp("/runs/7/rollouts?step=12");
    const conversation = await screen.findByRole("list", { name: "Episode of sample 0" }, { timeout: 5000 });
    const turns = within(conversation).getAllByRole("listitem").filter((li) => li.dataset.role === "assistant");
    expect(turns.map((t) => t.getAttribute("aria-label"))).toEqual(["Turn 1", "Turn 2", "Turn 3"]);
    expect(turns[1]).toHaveTextContent("invalid_move");
    expect(within(turns[2]!).getByLabelText("Call of python")).toHaveTextContent("print(4)");
    expect(within(conversation).getByText("answers c1")).toBeInTheDocument();
    // The prompt is the card's; a single-turn rollout stays a plain completion.
    expect(within(conversation).queryByText("guess 1-15?")).not.toBeInTheDocument();
    expect(screen.getByText("123")).toBeInTheDocument();
  });

  it("flags one turn of an episode and shows the flag on that turn with its status", async () => {
    const messages = [
      { role: "user", content: "sort 312" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "python", arguments: '{"code": "print(123)"}' } }],
        verdict: { error: "tool_call_parse" },
      },
      { role: "tool", content: "123", tool_call_id: "c1", name: "python" },
      { role: "assistant", content: "123", verdict: { error: null } },
    ];
    let turnFlags: InspectedRollout["turn_flags"] = [{ ...FLAG, id: 6, status: "accepted", label: "bad", turn: 3 }];
    const episode = () => ({ ...inspected(0, true, { prompt: "sort 312", completion: "123" }), messages, turn_flags: turnFlags }) as InspectedRollout;
    const { requests } = inspectorApi(() => [group([episode()])], {
      "POST /api/v1/runs/7/rollouts/100/flag/": () => {
        turnFlags = [{ ...FLAG, turn: 1 }, ...turnFlags];
        return { status: 201, body: { ...FLAG, turn: 1 } };
      },
    });
    renderApp("/runs/7/rollouts?step=12");
    const user = userEvent.setup();
    const conversation = await screen.findByRole("list", { name: "Episode of sample 0" }, { timeout: 5000 });
    const second = within(conversation).getByRole("listitem", { name: "Turn 2" });
    // A turn flagged before shows its status where the turn is; the other can be flagged.
    expect(second).toHaveTextContent("flag accepted");
    expect(within(second).queryByRole("button", { name: /^Flag turn/ })).not.toBeInTheDocument();
    const first = within(conversation).getByRole("listitem", { name: "Turn 1" });
    await user.click(within(first).getByRole("button", { name: "Flag turn 1 of sample 0" }));
    const form = within(first).getByRole("form", { name: "Flag the verdict of turn 1 of sample 0" });
    expect(form).toHaveTextContent("This turn was judged tool_call_parse, but it was fine");
    expect(form).toHaveTextContent("known good turn");
    await user.type(within(form).getByLabelText("Why (optional)"), "the call parses");
    await user.click(within(form).getByRole("button", { name: "Send flag" }));
    await waitFor(() => expect(within(first).getByText("flagged: awaiting review")).toBeInTheDocument());
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ note: "the call parses", turn: 1 });
    expect(within(first).queryByRole("button", { name: "Flag turn 1 of sample 0" })).not.toBeInTheDocument();
    // The rollout's own verdict is still unflagged.
    expect(screen.getByRole("button", { name: "Flag verdict of sample 0" })).toBeInTheDocument();
  });

  it("opens the rollouts of the step of a chart point that is clicked", async () => {
    inspectorApi(() => [group([inspected(0, true)])]);
    const { router } = renderApp("/runs/7");
    const figure = (await screen.findByRole("img", { name: "KL to the reference" }, { timeout: 5000 })).closest("figure")!;
    await waitFor(() => expect(FakeUPlot.live().some((p) => figure.contains(p.over))).toBe(true));
    const plot = FakeUPlot.live().find((p) => figure.contains(p.over))!;
    plot.hover(1);
    fireEvent.click(plot.over);
    await waitFor(() => expect(router.state.location.pathname).toBe("/runs/7/rollouts"));
    expect(router.state.location.search).toBe("?step=1");
    expect(await screen.findByRole("article", { name: "Step 12, group 0" })).toBeInTheDocument();
  });

  it("offers a chart's step as a button for the keyboard", async () => {
    inspectorApi(() => [group([inspected(0, true)])]);
    const { router } = renderApp("/runs/7");
    const figure = (await screen.findByRole("img", { name: "KL to the reference" }, { timeout: 5000 })).closest("figure")!;
    await userEvent.setup().click(within(figure).getByRole("button", { name: "Rollouts of step 2" }));
    expect(router.state.location.search).toBe("?step=2");
  });
});
