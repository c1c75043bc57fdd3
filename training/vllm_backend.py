"""Rollouts from vLLM, colocated with training on the same GPU (`sampling.backend: vllm`).

An optional extra: ``pip install '.[vllm]'`` on a CUDA worker. The engine holds the
policy; a vLLM ``LLM`` in the same process holds a copy of its weights and a KV cache in
``gpu_memory_utilization`` of the device. Between generations vLLM sleeps (``enable_sleep_mode``:
its weights go to CPU memory and its KV cache is freed), so the update has the GPU to
itself; before the next generation it wakes and, when the policy changed
(``sync_weights``), loads the policy's current weights. With LoRA it loads the merged
weights (base + scale x B A), so vLLM needs no adapter support.

The sampled tokens' log-probabilities come back with the completions, for the log-prob
gap and truncated importance sampling (``GRPOConfig.tis``): vLLM reports them either raw
(temperature 1) or after temperature, top-k and top-p; the engine wants them at the sampling
temperature before top-k and top-p (``Rollout.logprobs``), so ``logprobs_mode`` picks the one
that matches and none when neither does (the trainer's own forward pass is then the only one).

The pure parts (sampling settings to ``SamplingParams`` arguments, the log-prob mode, why
vLLM cannot run here) are unit-tested without vLLM; the generator needs vLLM and a GPU.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from training.config import SamplingConfig
from training.generation import PromptEncoder, Rollout, finish_rollout, generator_stops
from training.prompting import RAW_FORMAT, PromptFormat

GPU_MEMORY_UTILIZATION = 0.3
"""Share of the GPU's memory vLLM may take (weights and KV cache) while awake; the rest is
the trainer's (weights, gradients, optimizer state, activations)."""
SLEEP_LEVEL = 1
"""vLLM sleep level 1: weights offloaded to CPU memory, KV cache freed (level 2 would
discard the weights, and the next wake-up would need them all loaded again)."""


def vllm_problem() -> str | None:
    """Why the vLLM backend cannot run in this process, naming the field, or None."""
    if importlib.util.find_spec("vllm") is None:
        return "sampling.backend: vllm is not installed (pip install '.[vllm]' on a CUDA worker)"
    if not torch.cuda.is_available():
        return "sampling.backend: vllm needs a CUDA device and none is visible"
    return None


def logprobs_mode(sampling: SamplingConfig) -> str | None:
    """vLLM's ``logprobs_mode`` whose values equal the engine's ``Rollout.logprobs``
    (temperature applied, top-k and top-p not), or None when neither of vLLM's does."""
    if sampling.temperature in (0, 1):  # greedy is scored at temperature 1, as HF's path does
        return "raw_logprobs"
    if sampling.top_k == 0 and sampling.top_p == 1:
        return "processed_logprobs"  # only the temperature processed them
    return None


def sampling_params_kwargs(
    sampling: SamplingConfig, stops: list[int], n: int, seed: int | None = None
) -> dict[str, Any]:
    """``vllm.SamplingParams(**kwargs)`` for the engine's sampling settings: the same
    temperature (0: greedy), top-p, top-k (vLLM's -1 for off, the engine's 0), length limit
    and stop tokens (EOS and, in chat format, the template's end of turn, kept in the output
    as the engine's other backends keep them), and the sampled token's log-prob."""
    greedy = sampling.temperature == 0
    return {
        "n": n,
        "temperature": 0.0 if greedy else sampling.temperature,
        "top_p": 1.0 if greedy else sampling.top_p,
        "top_k": -1 if greedy or sampling.top_k == 0 else sampling.top_k,
        "max_tokens": sampling.max_new_tokens,
        "stop_token_ids": list(stops),
        "ignore_eos": False,
        "skip_special_tokens": False,  # the engine decodes the ids itself
        "include_stop_str_in_output": True,
        "logprobs": 0,  # the sampled token's log-prob only
        "seed": seed,
    }


def merged_weights(model: torch.nn.Module) -> Iterator[tuple[str, torch.Tensor]]:
    """(name, tensor) of `model`'s weights as a plain transformers model names them: with
    LoRA layers injected (peft), each adapted weight merged (W + scale B A), adapters left
    out. Call inside ``torch.no_grad``; the model is unchanged after."""
    for name, tensor in model.state_dict().items():
        if "lora_" in name:
            continue
        if ".base_layer." in name:
            layer: Any = model.get_submodule(name.rpartition(".base_layer.")[0])  # a peft LoraLayer
            name = name.replace(".base_layer.", ".")
            if name.endswith(".weight"):
                tensor = tensor + layer.get_delta_weight(layer.active_adapters[0])
        yield name, tensor


class VLLMGenerator(PromptEncoder):
    """The ``Generator`` protocol over a colocated vLLM engine (see the module's docstring)."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        prompt_format: PromptFormat = RAW_FORMAT,
        *,
        sampling: SamplingConfig,
        gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION,
    ) -> None:
        # Imported here, not at the top: vLLM is a heavy optional dependency (CUDA kernels, its
        # own torch pin) that CPU installs and the rest of the engine never load.
        from vllm import LLM

        self.model, self.tokenizer, self.prompt_format = model, tokenizer, prompt_format
        self.stops = generator_stops(model, tokenizer, prompt_format)
        self.mode = logprobs_mode(sampling)
        self.llm = LLM(
            model=model.name_or_path,
            tokenizer=tokenizer.name_or_path,
            dtype="bfloat16",
            gpu_memory_utilization=gpu_memory_utilization,
            enable_sleep_mode=True,
            logprobs_mode=self.mode or "raw_logprobs",
            enforce_eager=True,  # no CUDA graphs to capture again after each wake-up
        )
        self.stale = True  # the policy's weights may already differ from the directory's
        self.llm.sleep(level=SLEEP_LEVEL)

    def sync_weights(self) -> None:
        self.stale = True  # loaded when vLLM wakes for the next generation

    @torch.no_grad()
    def generate_tokens(
        self,
        prompt_ids: torch.Tensor,
        prompt_mask: torch.Tensor,
        sampling: SamplingConfig,
        n: int = 1,
    ) -> Rollout:
        from vllm import SamplingParams, TokensPrompt

        self.llm.wake_up()
        if self.stale:
            _runner_model(self.llm).load_weights(merged_weights(self.model))
            self.stale = False
        enc = {"input_ids": prompt_ids, "attention_mask": prompt_mask}
        requests = [
            TokensPrompt(prompt_token_ids=row[mask.bool()].tolist())
            for row, mask in zip(prompt_ids, prompt_mask, strict=True)
        ]
        params = SamplingParams(**sampling_params_kwargs(sampling, self.stops, n))
        outputs = self.llm.generate(requests, params, use_tqdm=False)
        self.llm.sleep(level=SLEEP_LEVEL)
        samples = [sample for output in outputs for sample in output.outputs]  # grouped by prompt
        return self._rollout(enc, samples, n)

    def _rollout(self, enc: Any, samples: list[Any], n: int) -> Rollout:
        device = next(self.model.parameters()).device
        width = max(1, max(len(s.token_ids) for s in samples))
        ids = torch.full((len(samples), width), self.tokenizer.pad_token_id, dtype=torch.long)
        logps = torch.zeros(len(samples), width)
        for row, sample in enumerate(samples):
            tokens = list(sample.token_ids)  # sample.logprobs: one {token id: Logprob} a token
            ids[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
            ranked = zip(tokens, sample.logprobs, strict=True)
            logps[row, : len(tokens)] = torch.tensor([r[t].logprob for t, r in ranked])
        return finish_rollout(
            enc["input_ids"].repeat_interleave(n, dim=0).to(device),
            enc["attention_mask"].repeat_interleave(n, dim=0).to(device),
            ids.to(device),
            self.tokenizer,
            None if self.mode is None else logps.to(device),
            stops=self.stops,
            prompt_format=self.prompt_format,
        )


def _runner_model(llm: Any) -> Any:
    """The torch module vLLM runs, in this process (V0 engine, or V1 without its separate
    engine process: ``VLLM_ENABLE_V1_MULTIPROCESSING=0``, which ``make_vllm_generator`` sets)."""
    worker = llm.llm_engine.model_executor.driver_worker
    return getattr(worker, "worker", worker).model_runner.model


def make_vllm_generator(
    sampling: SamplingConfig,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompt_format: PromptFormat = RAW_FORMAT,
) -> VLLMGenerator:
    """The colocated vLLM generator; RuntimeError naming ``sampling.backend`` and the reason
    when vLLM is not installed or there is no GPU."""
    problem = vllm_problem()
    if problem is not None:
        raise RuntimeError(problem)
    # The weights are loaded into vLLM's module from this process: keep its engine here.
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    return VLLMGenerator(model, tokenizer, prompt_format, sampling=sampling)
