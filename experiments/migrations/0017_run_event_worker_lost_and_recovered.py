from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0016_serving_models_move_to_serving"),
    ]

    operations = [
        migrations.AlterField(
            model_name="runevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("curriculum", "Curriculum"),
                    ("pause", "Pause"),
                    ("resume", "Resume"),
                    ("budget", "Budget"),
                    ("health", "Health"),
                    ("worker_lost", "Worker Lost"),
                    ("recovered", "Recovered"),
                ],
                max_length=16,
            ),
        ),
    ]
