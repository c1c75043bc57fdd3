"""A tiny local judge model, built and briefly trained here: no downloads.

Its vocabulary is a few words; it learns to say " yes" after responses containing "right"
and " no" after ones containing "wrong", so calibration has a real signal to find.
"""

from __future__ import annotations

from pathlib import Path

import pytest

JUDGE_TEMPLATE = "response : {response} verdict :"
WORDS = "response verdict : yes no right wrong maybe the answer is 1 2 3 4 5".split()


def _tokenizer() -> object:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {word: i for i, word in enumerate(["<unk>", "<s>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<s>")


def _train(model: object, tokenizer: object) -> None:
    import torch

    texts = [
        JUDGE_TEMPLATE.format(response=f"the answer is {n} {w}") + f" {label}"
        for n in "12345"
        for w, label in (("right", "yes"), ("wrong", "no"))
    ]
    batch = torch.tensor([tokenizer(t)["input_ids"] for t in texts])  # (10, seq)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    for _ in range(60):
        loss = model(batch, labels=batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@pytest.fixture(scope="session")
def judge_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    tokenizer = _tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=1,
        eos_token_id=1,
        pad_token_id=0,
    )
    model = LlamaForCausalLM(config)
    _train(model, tokenizer)
    path = tmp_path_factory.mktemp("judge")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
