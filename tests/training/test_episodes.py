"""Multi-turn rollouts: batched turns, environment tokens masked out of the loss, GRPO on
groups of episodes, episode metrics, and the chat template carrying the turns."""

import dataclasses
import json

import pytest
import torch

from tasks_app.environments import guess_number as tasks_app_game
from tasks_app.environments.base import Message
from tasks_app.families import guess_number as tasks_app_family
from training import guessing
from training import metric_catalogue as metric
from training.cli import main
from training.config import GRPOConfig, ModelConfig, PPOConfig, SamplingConfig
from training.demo import EnvDemoSettings, not_single_turn, run_seeds, summarize
from training.engine import train
from training.episodes import EnvironmentSpec, EnvTurn, TurnLimits, play
from training.evaluation import evaluate_episodes
from training.generation import HFGenerator
from training.interfaces import MemorySink, RewardResult
from training.losses import token_logprobs
from training.models import build_tiny_model, load_model, train_tokenizer
from training.prompting import RAW_FORMAT, PromptFormat
from training.step import completion_logits

SAMPLING = SamplingConfig(max_new_tokens=3, temperature=1.0)


@pytest.fixture(scope="module")
def tiny():
    tokenizer = train_tokenizer(guessing.corpus(300))
    return build_tiny_model(tokenizer, layers=1, width=32, seed=0).eval(), tokenizer


def played(tiny, items, limits=None, seed=0):
    model, tokenizer = tiny
    torch.manual_seed(seed)
    spec = guessing.environment(limits)
    return play(
        HFGenerator(model, tokenizer),
        tokenizer,
        RAW_FORMAT,
        spec,
        items,
        SAMPLING,
        torch.device("cpu"),
    )


def test_the_environment_tokens_are_attended_to_but_not_trained_on(tiny):
    model, tokenizer = tiny
    items = guessing.held_out(6, seed=5)
    out = played(tiny, items)
    rollout = out.rollout
    for row, record in enumerate(out.records):
        n = record.tokens
        assert (
            rollout.completion_attention[row, :n].all()
            and not rollout.completion_attention[row, n:].any()
        )
        trained = rollout.completion_mask[row].bool()
        assert int(trained.sum()) == record.assistant_tokens
        # The completion is the assistant's and the environment's turns in order, and only
        # the assistant's tokens are trained on (the answer to the last turn ends the episode:
        # it is recorded, never fed back).
        runs = contiguous_runs(rollout.completion_ids[row, :n], trained[:n])
        turns = [(m["role"] == "assistant", m["content"]) for m in record.messages[1:-1]]
        assert [
            (is_model, tokenizer.decode(ids, skip_special_tokens=True)) for is_model, ids in runs
        ] == turns
        assert (rollout.logprobs[row][~trained] == 0).all()


def contiguous_runs(ids, trained):
    """[(trained, ids)] for each run of tokens alike in `trained`."""
    runs = []
    for token, flag in zip(ids.tolist(), trained.tolist(), strict=True):
        if runs and runs[-1][0] == flag:
            runs[-1][1].append(token)
        else:
            runs.append((flag, [token]))
    return runs


def test_the_sampled_logprobs_are_the_training_forward_passes_on_every_assistant_token(tiny):
    model, _ = tiny
    out = played(tiny, guessing.held_out(6, seed=6)).rollout
    with torch.no_grad():
        logits, _ = completion_logits(model, out, SAMPLING.temperature)
    logps = token_logprobs(logits, out.completion_ids)
    mask = out.completion_mask.bool()
    assert (logps - out.logprobs)[mask].abs().max() < 1e-4


def test_episodes_end_by_the_environment_or_a_limit(tiny):
    items = guessing.held_out(8, seed=7)
    by_env = played(tiny, items)
    for item, record in zip(items, by_env.records, strict=True):
        assert record.turns <= item.payload["max_turns"]
        assert record.ended_by == "environment" and len(record.errors) == record.turns
    short = played(tiny, items, TurnLimits(max_turns=2, max_tokens_per_turn=3, max_total_tokens=96))
    assert {r.ended_by for r in short.records} <= {"environment", "max_turns"}
    assert max(r.turns for r in short.records) <= 2
    tight = played(tiny, items, TurnLimits(max_turns=8, max_tokens_per_turn=3, max_total_tokens=5))
    assert all(r.tokens <= 5 + 8 or r.ended_by == "max_total_tokens" for r in tight.records)
    assert any(r.ended_by == "max_total_tokens" for r in tight.records)
    assert all(r.assistant_tokens <= 5 for r in tight.records)


def by_answer_parity(items, episodes):
    """A reward a random model's episodes differ on (they seldom find the secret)."""
    odd = [sum(map(ord, e.final_state["answer"])) % 2 for e in episodes]
    return [RewardResult(float(o), bool(o)) for o in odd]


def test_grpo_trains_on_groups_of_episodes_and_records_the_episode_metrics(tiny):
    model, tokenizer = tiny
    model = build_tiny_model(tokenizer, layers=1, width=32, seed=1)
    before = [p.detach().clone() for p in model.parameters()]
    sink = MemorySink()
    config = GRPOConfig(
        max_steps=2,
        prompts_per_step=3,
        group_size=4,
        sampling=SAMPLING,
        cpu_threads=1,
        eval_every=2,
    )
    seen = []

    class Sink(MemorySink):
        def rollouts(self, step, completions):
            seen.extend(completions)

    sink = Sink()
    train(
        config,
        sampler=guessing.GuessSampler(3, 4, seed=2),
        reward_fn=not_single_turn,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
        environment=dataclasses.replace(guessing.environment(), reward_fn=by_answer_parity),
        eval_items=guessing.held_out(4, 3, 4),
    )
    assert any((a != b).any() for a, b in zip(before, model.parameters(), strict=True))
    keys = {k for _, row in sink.rows for k in row}
    assert {
        metric.EPISODE_TURNS,
        metric.EPISODE_TOKENS,
        metric.EPISODE_TURN_ERRORS,
        metric.EVAL_EPISODE_TURNS,
    } <= keys
    assert any(k.startswith("episodes/success_by_turns/t") for k in keys)
    assert all(metric.lookup(k) is not None for k in keys), sorted(
        k for k in keys if metric.lookup(k) is None
    )
    # The G episodes of a group play the same task; each carries its conversation.
    assert len(seen) == 2 * 3 * 4
    for start in range(0, len(seen), 4):
        assert len({c.item.prompt for c in seen[start : start + 4]}) == 1
    for c in seen:
        episode = c.result.details["episode"]
        assert episode["messages"][0]["content"] == c.item.prompt and episode["turns"] >= 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda: PPOConfig(max_steps=1, sampling=SAMPLING), "algorithm"),
        (
            lambda: GRPOConfig(max_steps=1, sampling=SAMPLING, async_verification=True),
            "async_verification",
        ),
    ],
)
def test_it_refuses_what_cannot_train_on_episodes(tiny, change, field):
    _, tokenizer = tiny
    with pytest.raises(ValueError, match=field):
        train(
            change(),
            sampler=guessing.GuessSampler(),
            reward_fn=not_single_turn,
            model=build_tiny_model(tokenizer, layers=1, width=16),
            tokenizer=tokenizer,
            environment=guessing.environment(),
        )
    with pytest.raises(ValueError, match="limits.max_turns"):
        train(
            GRPOConfig(max_steps=1, sampling=SAMPLING),
            sampler=guessing.GuessSampler(),
            reward_fn=not_single_turn,
            model=build_tiny_model(tokenizer, layers=1, width=16),
            tokenizer=tokenizer,
            environment=guessing.environment(TurnLimits(max_turns=0)),
        )


class Chatty:
    """Answers every message with a user turn; done after the third."""

    def __init__(self, item):
        self.item, self.said = item, []

    def open(self):
        return [{"role": "user", "content": self.item.prompt}], []

    def reply(self, text):
        self.said.append(text)
        return EnvTurn(
            [{"role": "user", "content": f"again {len(self.said)}"}], len(self.said) == 3
        )

    def final_state(self):
        return {"answer": self.said[-1]}


def test_in_chat_format_the_turns_are_the_templates_rendering(tiny_build):
    model, tokenizer = load_model(ModelConfig(path=str(tiny_build("qwen2"))))
    fmt = PromptFormat(kind="chat", system_prompt="be brief")
    spec = EnvironmentSpec(
        Chatty,
        lambda items, eps: [None] * len(eps),
        TurnLimits(max_turns=3, max_tokens_per_turn=4, max_total_tokens=200),
    )
    items = guessing.held_out(3, seed=2)
    torch.manual_seed(0)
    out = play(
        HFGenerator(model, tokenizer, fmt),
        tokenizer,
        fmt,
        spec,
        items,
        SAMPLING,
        torch.device("cpu"),
    )
    for row, record in enumerate(out.records):
        rollout = out.rollout
        ids = torch.cat(
            [
                rollout.prompt_ids[row][rollout.prompt_mask[row].bool()],
                rollout.completion_ids[row, : record.tokens],
            ]
        )
        text = tokenizer.decode(ids)
        # Up to the last turn the tokens are the template's rendering of the conversation
        # (a turn cut at max_tokens_per_turn gets the template's end of turn, masked); the
        # last assistant message follows, and the environment's answer to it is not fed back.
        opened = tokenizer.apply_chat_template(
            record.messages[:-2], tokenize=False, add_generation_prompt=True
        )
        assert record.messages[0] == {"role": "system", "content": "be brief"}
        assert text.startswith(opened)
        assert text[len(opened) :].removesuffix("<|im_end|>") == record.messages[-2]["content"]
        assert record.turns == 3 and record.ended_by == "environment"


def test_evaluation_plays_one_episode_per_item_and_counts_turns(tiny):
    model, tokenizer = tiny
    items = guessing.held_out(8, seed=9)
    result = evaluate_episodes(model, tokenizer, items, guessing.environment(), seed=1)
    again = evaluate_episodes(model, tokenizer, items, guessing.environment(), seed=1)
    assert result.n == 8 and 1 <= result.turns <= 7
    assert (result.success, result.turns) == (again.success, again.turns)
    assert result.metrics()[metric.EVAL_EPISODE_TURNS] == result.turns


def test_the_game_answers_as_the_platforms_environment_does():
    for seed in range(3):
        item = guessing.held_out(1, seed=seed)[0]
        p = item.payload
        task = tasks_app_family.make_task(p["secret"], p["low"], p["high"])
        assert task.prompt == item.prompt and task.expected["max_turns"] == p["max_turns"]
        assert task.difficulty == item.difficulty
        ours, theirs = guessing.GuessEnvironment(item), tasks_app_game.make()
        theirs.reset(task)
        ours.open()
        for guess in ("50", "x", str(p["low"]), str(p["high"]), str(p["secret"])):
            mine = ours.reply(guess)
            other = theirs.step(Message("assistant", guess))
            assert mine.messages[0]["content"] == other.messages[0].content
            assert (mine.done, mine.error) == (other.done, other.error)
            if mine.done:
                break


def test_the_summary_carries_turns_before_and_after():
    runs = [
        {
            "seed": 0,
            "before": 0.4,
            "after": 0.7,
            "turns_before": 5.0,
            "turns_after": 4.0,
            "seconds": 9.0,
        },
        {
            "seed": 1,
            "before": 0.5,
            "after": 0.8,
            "turns_before": 5.2,
            "turns_after": 4.4,
            "seconds": 9.0,
        },
    ]
    summary = summarize(runs)
    assert [r["turns_after"] for r in summary["runs"]] == [4.0, 4.4]
    assert summary["mean_turns_before"] == 5.1 and summary["mean_turns_after"] == 4.2
    assert "turns_before" not in summarize([dataclasses.asdict(Run(0, 0.1, 0.2, 1.0))])["runs"][0]


@dataclasses.dataclass
class Run:
    seed: int
    before: float
    after: float
    seconds: float


@pytest.mark.slow
def test_the_demo_on_episodes_reports_turns_before_and_after(capsys):
    settings = EnvDemoSettings(
        sft_steps=21,
        grpo_steps=1,
        prompts_per_step=2,
        group_size=2,
        dynamic_sampling=True,
        loss_aggregation="sequence",
        held_out=8,
        eval_temperature=0.0,
        seed=2,
    )
    summary = run_seeds(settings, 1, progress_bar=False)
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last == summary and last["runs"][0]["seed"] == 2
    assert 1 <= last["runs"][0]["turns_before"] <= 7 and 1 <= last["mean_turns_after"] <= 7


def test_the_cli_names_the_environments_it_knows():
    with pytest.raises(SystemExit):
        main(["demo", "--env", "chess"])


def test_dynamic_sampling_refills_groups_of_episodes(tiny):
    _, tokenizer = tiny
    sink = MemorySink()
    config = GRPOConfig(
        max_steps=1,
        prompts_per_step=2,
        group_size=4,
        dynamic_sampling=True,
        max_refill_rounds=2,
        sampling=SAMPLING,
        cpu_threads=1,
    )
    train(
        config,
        sampler=guessing.GuessSampler(3, 4, seed=3),
        reward_fn=not_single_turn,
        sink=sink,
        model=build_tiny_model(tokenizer, layers=1, width=32, seed=2),
        tokenizer=tokenizer,
        environment=dataclasses.replace(guessing.environment(), reward_fn=by_answer_parity),
    )
    row = sink.rows[-1][1]
    assert row[metric.DYNAMIC_ROUNDS] >= 1 and metric.EPISODE_TURNS in row
