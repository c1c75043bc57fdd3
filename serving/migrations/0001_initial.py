"""The serving models, taken over from the experiments app with their tables.

Their tables were made by ``experiments`` (0010 to 0013) and keep their names
(``db_table``): this migration only records the models in this app's state
(``experiments.0016`` then drops them from its own), so no row moves. The content types
and the audit log's target types follow the models, so permissions and past audit events
name them as new ones do.
"""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import serving.models

MOVED = ("deployment", "replica", "canary", "servedrequest")


def relabel(old: str, new: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        ContentType = apps.get_model("contenttypes", "ContentType")
        AuditEvent = apps.get_model("accounts", "AuditEvent")
        for model in MOVED:
            if not ContentType.objects.filter(app_label=new, model=model).exists():
                ContentType.objects.filter(app_label=old, model=model).update(app_label=new)
            AuditEvent.objects.filter(target_type=f"{old}.{model}").update(
                target_type=f"{new}.{model}"
            )

    return run


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0002_auditevent_target_label"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("experiments", "0015_metric_point_replaces"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Deployment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=120)),
                        ('slug', models.SlugField(max_length=60)),
                        ('served_format', models.JSONField(default=dict)),
                        ('max_new_tokens', models.PositiveIntegerField(default=32)),
                        ('temperature', models.FloatField(default=0.0)),
                        ('timeout_s', models.FloatField(default=30.0)),
                        ('max_queue', models.PositiveIntegerField(default=64)),
                        ('max_batch', models.PositiveIntegerField(default=8)),
                        ('stopped', models.BooleanField(default=False)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('registered_model', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='deployments', to='experiments.registeredmodel')),
                        ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.team')),
                        ('version', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='deployments', to='experiments.modelversion')),
                    ],
                    options={
                        'db_table': 'experiments_deployment',
                        'ordering': ['name', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='Replica',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('production', 'Production'), ('candidate', 'Candidate')], max_length=20)),
                        ('state', models.CharField(choices=[('starting', 'Starting'), ('ready', 'Ready'), ('stopping', 'Stopping'), ('stopped', 'Stopped'), ('failed', 'Failed')], default='starting', max_length=20)),
                        ('address', models.CharField(blank=True, max_length=200)),
                        ('secret', models.CharField(default=serving.models.new_replica_secret, editable=False, max_length=64)),
                        ('worker', models.CharField(blank=True, max_length=200)),
                        ('message', models.CharField(blank=True, max_length=500)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('stopped_at', models.DateTimeField(blank=True, null=True)),
                        ('deployment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='replicas', to='serving.deployment')),
                        ('version', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='replicas', to='experiments.modelversion')),
                    ],
                    options={
                        'db_table': 'experiments_replica',
                        'ordering': ['-id'],
                    },
                ),
                migrations.CreateModel(
                    name='Canary',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('mode', models.CharField(choices=[('shadow', 'Shadow'), ('split', 'Split')], max_length=10)),
                        ('steps', models.JSONField(default=list)),
                        ('step', models.PositiveIntegerField(default=0)),
                        ('step_started_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('guardrails', models.JSONField(default=dict)),
                        ('state', models.CharField(choices=[('running', 'Running'), ('awaiting_decision', 'Awaiting Decision'), ('paused', 'Paused'), ('promoted', 'Promoted'), ('rolled_back', 'Rolled Back'), ('cancelled', 'Cancelled')], default='running', max_length=20)),
                        ('reason', models.TextField(blank=True)),
                        ('analysis', models.JSONField(default=dict)),
                        ('history', models.JSONField(default=list)),
                        ('series', models.JSONField(default=list)),
                        ('revision', models.PositiveIntegerField(default=0)),
                        ('shadow_dropped', models.PositiveIntegerField(default=0)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('candidate', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='canaries', to='experiments.modelversion')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('production', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='experiments.modelversion')),
                        ('deployment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='canaries', to='serving.deployment')),
                        ('replica', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='serving.replica')),
                    ],
                    options={
                        'db_table': 'experiments_canary',
                        'ordering': ['-id'],
                    },
                ),
                migrations.CreateModel(
                    name='ServedRequest',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('step', models.IntegerField(blank=True, null=True)),
                        ('side', models.CharField(choices=[('production', 'Production'), ('candidate', 'Candidate')], max_length=20)),
                        ('shadow', models.BooleanField(default=False)),
                        ('key', models.CharField(blank=True, max_length=200)),
                        ('prompt', models.TextField()),
                        ('completion', models.TextField(blank=True)),
                        ('status', models.CharField(choices=[('ok', 'Ok'), ('error', 'Error'), ('timeout', 'Timeout')], max_length=10)),
                        ('error', models.CharField(blank=True, max_length=500)),
                        ('latency_ms', models.FloatField(blank=True, null=True)),
                        ('output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('family', models.CharField(blank=True, max_length=100)),
                        ('task', models.CharField(blank=True, max_length=100)),
                        ('passed', models.BooleanField(null=True)),
                        ('judged_against', models.CharField(blank=True, choices=[('', 'Nothing'), ('pool', 'Pool'), ('caller', 'Caller')], default='', max_length=10)),
                        ('reward', models.FloatField(blank=True, null=True)),
                        ('verdict', models.JSONField(blank=True, default=dict)),
                        ('format_warnings', models.JSONField(blank=True, default=list)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('canary', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='requests', to='serving.canary')),
                        ('deployment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='requests', to='serving.deployment')),
                        ('version', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='experiments.modelversion')),
                    ],
                    options={
                        'db_table': 'experiments_servedrequest',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='deployment',
                    constraint=models.UniqueConstraint(fields=('team', 'slug'), name='deployment_slug_per_team'),
                ),
                migrations.AddConstraint(
                    model_name='canary',
                    constraint=models.UniqueConstraint(condition=models.Q(('state__in', ['running', 'awaiting_decision', 'paused'])), fields=('deployment',), name='one_active_canary_per_deployment'),
                ),
                migrations.AddIndex(
                    model_name='servedrequest',
                    index=models.Index(fields=['deployment', '-created_at'], name='served_by_deployment'),
                ),
                migrations.AddIndex(
                    model_name='servedrequest',
                    index=models.Index(fields=['canary', 'step', 'side'], name='served_by_canary_step'),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel("experiments", "serving"), relabel("serving", "experiments")),
    ]
