// Loads a real task of a pool version into the playground: pick family → version → task,
// or draw a random task of the version.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { Field } from "@/components/ui/field";
import { familiesQueryOptions, type Family } from "@/lib/families";

import { getPoolTaskAt, TASKS_SHOWN, usePoolTasks, type PoolTask } from "../api/get-pool-tasks";
import { usePoolVersions, type PoolVersion } from "../api/get-pool-versions";

export type LoadedTask = { task: PoolTask; family: Family; version: PoolVersion };

function taskLabel(task: PoolTask): string {
  const prompt = task.prompt.replace(/\s+/g, " ").trim();
  return `#${task.position + 1} · level ${task.difficulty} · ${prompt.length > 70 ? `${prompt.slice(0, 70)}…` : prompt}`;
}

function useRandomTask(onLoad: (task: PoolTask) => void) {
  return useMutation({
    // Positions are 1-based pages of one task each, in the version's order.
    mutationFn: (version: PoolVersion) =>
      getPoolTaskAt(version.id, 1 + Math.floor(Math.random() * Math.max(1, version.task_count))),
    onSuccess: (task) => task && onLoad(task),
  });
}

export function TaskPicker({ team, onLoad }: { team: string; onLoad: (loaded: LoadedTask) => void }) {
  const families = useQuery(familiesQueryOptions(team || undefined));
  const [familyId, setFamilyId] = useState<number | null>(null);
  const [versionId, setVersionId] = useState<number | null>(null);
  const [search, setSearch] = useState("");
  const [taskId, setTaskId] = useState<number | null>(null);
  const versions = usePoolVersions(familyId);
  const family = families.data?.find((f) => f.id === familyId);
  const version = versions.data?.find((v) => v.id === versionId) ?? versions.data?.[0];
  const tasks = usePoolTasks(version?.id ?? null, search);
  const load = (task: PoolTask) => family && version && onLoad({ task, family, version });
  const random = useRandomTask((task) => {
    setTaskId(task.id); // the list shows the drawn task when it is among those listed
    load(task);
  });
  const chosen = tasks.data?.results.find((t) => t.id === taskId) ?? tasks.data?.results[0];

  return (
    <div className="stack" style={{ gap: "var(--space-2)" }} aria-label="Load a task" role="group">
      <div className="form-row">
        <Field id="playground-family" label="Family">
          <select
            id="playground-family"
            className="select"
            value={familyId ?? ""}
            onChange={(e) => {
              setFamilyId(e.target.value ? Number(e.target.value) : null);
              setVersionId(null);
              setTaskId(null);
            }}
          >
            <option value="">{families.data?.length === 0 ? "no families in this team" : "choose a family"}</option>
            {(families.data ?? []).map((f) => (
              <option key={f.id} value={f.id}>
                {f.name} ({f.kind})
              </option>
            ))}
          </select>
        </Field>
        <Field id="playground-pool-version" label="Pool version">
          <select
            id="playground-pool-version"
            className="select"
            value={version?.id ?? ""}
            disabled={!versions.data?.length}
            onChange={(e) => {
              setVersionId(Number(e.target.value));
              setTaskId(null);
            }}
          >
            {familyId !== null && versions.data?.length === 0 && <option value="">no versions yet</option>}
            {(versions.data ?? []).map((v) => (
              <option key={v.id} value={v.id}>
                v{v.number} · {v.task_count} tasks
              </option>
            ))}
          </select>
        </Field>
        <button
          type="button"
          className="btn btn-sm"
          disabled={!version || random.isPending}
          onClick={() => version && random.mutate(version)}
        >
          Random task
        </button>
      </div>
      {version && (
        <div className="form-row">
          <Field id="playground-task-search" label="Search prompts">
            <input
              id="playground-task-search"
              className="input"
              type="search"
              value={search}
              onChange={(e) => {
                setSearch(e.target.value);
                setTaskId(null);
              }}
            />
          </Field>
          <Field
            id="playground-task"
            label="Task"
            style={{ flex: "3 1 320px" }}
            hint={
              tasks.data && tasks.data.count > TASKS_SHOWN
                ? `first ${TASKS_SHOWN} of ${tasks.data.count}; search to narrow`
                : undefined
            }
          >
            <select
              id="playground-task"
              className="select"
              value={chosen?.id ?? ""}
              disabled={!tasks.data?.results.length}
              onChange={(e) => setTaskId(Number(e.target.value))}
            >
              {tasks.data?.results.length === 0 && <option value="">no task matches</option>}
              {(tasks.data?.results ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {taskLabel(t)}
                </option>
              ))}
            </select>
          </Field>
          <button type="button" className="btn btn-sm" disabled={!chosen} onClick={() => chosen && load(chosen)}>
            Load task
          </button>
        </div>
      )}
      <ErrorMessage error={families.error ?? versions.error ?? tasks.error ?? random.error} />
    </div>
  );
}
