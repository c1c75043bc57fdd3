import torch

from training import digits
from training.config import SamplingConfig
from training.generation import HFGenerator


def test_it_groups_completions_and_masks_after_eos(base):
    model, tokenizer = base
    items = digits.held_out(3, 2, 5)
    out = HFGenerator(model, tokenizer).generate([i.prompt for i in items], SamplingConfig(12), n=4)
    assert out.completion_ids.shape[0] == 12 and len(out.texts) == 12
    assert (out.prompt_ids[0] == out.prompt_ids[3]).all()  # rows 0..3 share prompt 0
    for row, mask in zip(out.completion_ids, out.completion_mask, strict=True):
        n = int(mask.sum())
        assert (mask[:n] == 1).all() and (mask[n:] == 0).all()
        if n < len(row) or row[n - 1] == tokenizer.eos_token_id:
            assert row[n - 1] == tokenizer.eos_token_id


def test_it_decodes_greedily_at_temperature_zero(base):
    model, tokenizer = base
    gen = HFGenerator(model, tokenizer)
    prompts = [i.prompt for i in digits.held_out(4, 2, 4)]
    torch.manual_seed(0)
    a = gen.generate(prompts, SamplingConfig(12, temperature=0)).texts
    torch.manual_seed(1)
    assert gen.generate(prompts, SamplingConfig(12, temperature=0)).texts == a
