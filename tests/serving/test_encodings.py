"""A replica's generators for requests encoded otherwise than its model was trained: the raw
prompt of a completion, or a chat's own system prompt, on a tiny chat model."""

from __future__ import annotations

from serving.services.replicas import Encodings
from training import tiny_models
from training.config import ModelConfig, SamplingConfig
from training.models import load_model
from training.prompting import CHAT, PromptFormat, render


def test_it_makes_and_keeps_a_generator_per_encoding_with_the_trained_tags(tmp_path) -> None:  # type: ignore[no-untyped-def]
    model, tokenizer = load_model(ModelConfig(path=str(tiny_models.build("qwen2", tmp_path))))
    trained = PromptFormat(CHAT, "Sort the digits.", ("<r>", "</r>"))
    encodings = Encodings(model, tokenizer, trained)

    chat = encodings(("chat", "Be brief."))
    assert chat.prompt_format == PromptFormat(CHAT, "Be brief.", ("<r>", "</r>"))  # type: ignore[attr-defined]
    assert encodings(("chat", "Be brief.")) is chat
    raw = encodings(("raw", None))
    assert not raw.prompt_format.is_chat  # type: ignore[attr-defined]
    assert "Be brief." in render(tokenizer, "12", chat.prompt_format)  # type: ignore[attr-defined]
    assert render(tokenizer, "12", raw.prompt_format) == "12"  # type: ignore[attr-defined]
    sampling = SamplingConfig(max_new_tokens=3, temperature=0.0)
    assert len(raw.generate(["12"], sampling).texts) == 1

    for i in range(Encodings.KEPT):
        encodings(("chat", f"system {i}"))
    assert len(encodings.kept) == Encodings.KEPT and ("raw", None) not in encodings.kept
