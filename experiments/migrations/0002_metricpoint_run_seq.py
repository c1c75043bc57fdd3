from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0001_initial"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="metricpoint",
            index=models.Index(fields=["run", "id"], name="metric_point_run_seq"),
        ),
    ]
