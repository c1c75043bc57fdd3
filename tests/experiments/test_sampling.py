import pytest

from experiments.services.sampling import curriculum_sampler, held_out_tasks
from tasks_app.services import curricula, pools
from training.interfaces import RewardResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def curriculum(owner, team):
    family = pools.create_family(
        owner, team, name="Digits", slug="digits", kind="string-ops", held_out_fraction=0.3
    )
    tasks = pools.generated_tasks(family, {level: 40 for level in (1, 2, 3)}, seed=2)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    config = {"families": [{"version": version.id}], "window": 8, "step": 0.5}
    return curricula.create_curriculum(owner, team, config=config, name="Ramp", slug="ramp")


def test_it_never_samples_held_out_tasks(curriculum):
    held_out = {task.prompt for _, task in held_out_tasks(curriculum)}
    sampler = curriculum_sampler(curriculum, seed=1)
    drawn = [item for _ in range(20) for item in sampler.sample(16)]
    assert held_out and not held_out & {item.prompt for item in drawn}
    assert {item.family for item in drawn} == {"digits"}


def test_it_moves_to_harder_levels_when_every_answer_passes(curriculum):
    sampler = curriculum_sampler(curriculum, seed=1)
    first = [item.difficulty for item in sampler.sample(64)]
    for _ in range(10):
        items = sampler.sample(16)
        sampler.observe(items, [RewardResult(1.0, passed=True) for _ in items])
    later = [item.difficulty for item in sampler.sample(64)]
    assert sum(later) / len(later) > sum(first) / len(first) + 0.5


def test_it_resumes_sampling_exactly_from_its_state(curriculum):
    sampler = curriculum_sampler(curriculum, seed=3)
    items = sampler.sample(16)
    sampler.observe(items, [RewardResult(0.0, passed=i % 2 == 0) for i, _ in enumerate(items)])
    resumed = curriculum_sampler(curriculum, seed=99)
    resumed.load_state_dict(sampler.state_dict())
    assert [i.prompt for i in sampler.sample(32)] == [i.prompt for i in resumed.sample(32)]
