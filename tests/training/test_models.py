from training import digits
from training.config import ModelConfig
from training.models import load_model, save_model


def test_it_tokenizes_every_digit_separately():
    _, tokenizer = load_model(ModelConfig(), digits.corpus(200))
    ids = tokenizer("sort 3310=", add_special_tokens=False)["input_ids"]
    pieces = tokenizer.convert_ids_to_tokens(ids)
    assert pieces[-5:] == ["3", "3", "1", "0", "="]
    assert tokenizer.decode(ids) == "sort 3310="


def test_it_round_trips_the_tiny_model_through_save_pretrained(tmp_path):
    model, tokenizer = load_model(ModelConfig(), digits.corpus(200))
    assert 400_000 < sum(p.numel() for p in model.parameters()) < 700_000
    save_model(model, tokenizer, tmp_path)
    reloaded, retok = load_model(ModelConfig(path=str(tmp_path)))
    assert retok.padding_side == "left" and retok.eos_token_id == tokenizer.eos_token_id
    for (name, a), b in zip(
        model.state_dict().items(), reloaded.state_dict().values(), strict=True
    ):
        assert a.equal(b), name
