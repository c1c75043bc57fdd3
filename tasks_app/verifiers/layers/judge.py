"""A model-assisted judge: a local Hugging Face causal LM asked a yes/no question.

The score is P(yes) / (P(yes) + P(no)) for the next token after the rendered prompt. A model
judge is biased (by its training, by the wording, by length); its results are marked
``biased`` and its threshold should come from ``calibrate_judge`` on labelled examples.
"""

from __future__ import annotations

import json
import string
import threading
from pathlib import Path
from typing import Any

from tasks_app.verifiers.base import ErrorType, LayerResult, Stage
from tasks_app.verifiers.layers.base import Context, Expected, Layer, Params, number, params_object

FIELDS = ("response", "extracted", "prompt", "answer", "expected")
DEFAULT_TEMPLATE = (
    "Question:\n{prompt}\n\nReference answer: {answer}\n\nResponse:\n{response}\n\n"
    "Is the response correct? Answer yes or no.\nAnswer:"
)
_models: dict[tuple[str, str], tuple[Any, Any]] = {}
_models_lock = threading.Lock()


def load_judge_model(model_path: str, device: str = "cpu") -> tuple[Any, Any]:
    """(tokenizer, model) for a local directory, loaded once per process and device."""
    with _models_lock:
        if (model_path, device) not in _models:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(model_path)
            model = AutoModelForCausalLM.from_pretrained(model_path)
            model = model.to(device).eval()  # type: ignore[arg-type]  # transformers' stubs
            _models[(model_path, device)] = (tokenizer, model)
        return _models[(model_path, device)]


def render(
    template: str, extracted: str, response: str, expected: Expected, context: Context
) -> str:
    values = {
        "response": response,
        "extracted": extracted,
        "prompt": context.get("prompt", ""),
        "answer": expected.get("answer", ""),
        "expected": json.dumps(expected, sort_keys=True, default=str),
    }
    return template.format_map(values)


def template_problem(template: str) -> str | None:
    """Why the template cannot be rendered: an unknown or positional placeholder."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        return f"is not a valid template ({exc})"
    unknown = sorted({name for name in names if name not in FIELDS})
    return f"unknown placeholder(s) {unknown}; use {list(FIELDS)}" if unknown else None


def yes_probability(tokenizer: Any, model: Any, text: str, params: Params) -> float:
    return judged(tokenizer, model, text, params)[0]


def judged(tokenizer: Any, model: Any, text: str, params: Params) -> tuple[float, int]:
    """P(yes), and the prompt tokens the judge read (what its usage is counted in)."""
    import torch

    yes_id = _first_token(tokenizer, params.get("yes_token", " yes"))
    no_id = _first_token(tokenizer, params.get("no_token", " no"))
    ids = tokenizer(text, add_special_tokens=True)["input_ids"]
    ids = ids[-int(params.get("max_prompt_tokens", 2048)) :]  # keep the question's end
    with torch.no_grad():
        logits = model(torch.tensor([ids], device=model.device)).logits[0, -1]  # (vocab,)
    pair = torch.stack([logits[yes_id], logits[no_id]]).float()
    return float(torch.softmax(pair, dim=0)[0]), len(ids)


def _first_token(tokenizer: Any, word: str) -> int:
    ids = tokenizer.encode(word, add_special_tokens=False)
    if not ids:
        raise ValueError(f"the tokenizer turns {word!r} into no token")
    return ids[0]


class ModelJudge(Layer):
    kind = "model_judge"
    stage = Stage.JUDGE
    biased = True
    description = "A local causal LM answers yes/no; passes when P(yes) >= threshold. Biased."
    params_schema = params_object(
        {
            "model_path": {"type": "string", "minLength": 1, "description": "local HF model dir"},
            "prompt_template": {"type": "string", "minLength": 1, "default": DEFAULT_TEMPLATE},
            "threshold": number(default=0.5, maximum=1),
            "yes_token": {"type": "string", "minLength": 1, "default": " yes"},
            "no_token": {"type": "string", "minLength": 1, "default": " no"},
            "max_prompt_tokens": {"type": "integer", "minimum": 8, "default": 2048},
            "device": {"type": "string", "default": "cpu"},
        },
        required=("model_path",),
    )

    @classmethod
    def check_params(cls, params: Params) -> list[tuple[str, str]]:
        # model_path is not checked here: the model may live only on the verifying worker.
        problem = template_problem(params.get("prompt_template", DEFAULT_TEMPLATE))
        return [("prompt_template", problem)] if problem else []

    def run(
        self, extracted: str, response: str, expected: Expected, context: Context
    ) -> LayerResult:
        text = render(self._template(), extracted, response, expected, context)
        if not Path(self.params["model_path"]).is_dir():
            return self.fail(ErrorType.VERIFIER_ERROR, "model_path is not a local model directory")
        tokenizer, model = load_judge_model(self.params["model_path"], self._device())
        p_yes, tokens = judged(tokenizer, model, text, self.params)
        threshold = float(self.params.get("threshold", 0.5))
        info = {"p_yes": p_yes, "threshold": threshold, "tokens": tokens}
        if p_yes >= threshold:
            return self.ok(p_yes, f"P(yes)={p_yes:.3f}", **info)
        detail = f"P(yes)={p_yes:.3f} < {threshold}"
        return self.fail(ErrorType.JUDGE_REJECTED, detail, p_yes, **info)

    def _template(self) -> str:
        return self.params.get("prompt_template", DEFAULT_TEMPLATE)

    def _device(self) -> str:
        return self.params.get("device", "cpu")
