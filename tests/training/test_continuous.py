"""Continuous batching: rows that join and leave a running batch decode as they would alone."""

from __future__ import annotations

import torch

from training import digits
from training.config import SamplingConfig
from training.continuous import GROW_SLOTS, RunningBatch
from training.decode import DecodeGenerator
from training.generation import generator_stops
from training.prompting import encode_batch


def test_rows_joining_between_tokens_decode_greedily_as_alone(base) -> None:  # type: ignore[no-untyped-def]
    model, tokenizer = base
    generator = DecodeGenerator(model, tokenizer)
    # lengths both sides of the running rows', so newcomers both fit in and shift them
    prompts = [digits.make_item(d).prompt for d in ("31", "9530271", "7", "42", "123456", "88")]
    sampling = SamplingConfig(max_new_tokens=12, temperature=0.0)
    alone = []
    for prompt in prompts:
        rollout = generator.generate([prompt], sampling)
        alone.append(rollout.completion_ids[0, : int(rollout.lengths[0])].tolist())
    stops = set(generator_stops(model, tokenizer, generator.prompt_format))

    model.eval()
    batch = RunningBatch(model)
    rows: list[tuple[int, list[int]]] = []
    logits = torch.zeros(0, model.config.vocab_size)
    waiting, decoded = list(enumerate(prompts)), {}
    while waiting or rows:
        if waiting:  # one newcomer (as two copies) per token boundary
            i, prompt = waiting.pop(0)
            enc = encode_batch(tokenizer, [prompt], generator.prompt_format)
            logits = torch.cat([logits, batch.admit(enc["input_ids"], enc["attention_mask"], 2)])
            rows += [(i, []), (i, [])]
        tokens = logits.argmax(dim=-1)
        kept = []
        for j, ((i, ids), token) in enumerate(zip(rows, tokens.tolist(), strict=True)):
            ids.append(token)
            if token in stops or len(ids) == sampling.max_new_tokens:
                decoded.setdefault(i, []).append(ids)
            else:
                kept.append(j)
        rows = [rows[j] for j in kept]
        batch.keep(torch.tensor(kept, dtype=torch.long))
        logits = batch.step(tokens[kept]) if rows else logits[:0]
        assert batch.length <= 6 + sampling.max_new_tokens + 2 * GROW_SLOTS  # trimmed as rows leave

    assert [decoded[i] for i in range(len(prompts))] == [[ids, ids] for ids in alone]
    assert batch.rows == 0
