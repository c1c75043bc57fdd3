import { Fragment, useState } from "react";

import { QueryPlaceholder } from "@/components/ui/card";

import { usePoolTasks, type PoolTaskFilters } from "../api/get-pool-tasks";
import type { PoolTask, Split } from "../api/types";

const PAGE_SIZE = 25;

function TaskDetail({ task }: { task: PoolTask }) {
  return (
    <div className="tf-split">
      <div className="stack" style={{ gap: 4 }}>
        <span className="subtle">Prompt</span>
        <pre className="tf-pre">{task.prompt}</pre>
      </div>
      <div className="stack" style={{ gap: 4 }}>
        <span className="subtle">Expected</span>
        <pre className="tf-pre">{JSON.stringify(task.expected, null, 2)}</pre>
        <span className="subtle mono" style={{ fontSize: "var(--text-xs)" }}>
          {task.content_hash}
          {task.source_id && ` · source ${task.source_id}`}
        </span>
      </div>
    </div>
  );
}

/**
 * The tasks of one version, filtered and paged by the server. Rows expand to the full
 * prompt and expected answer; checked rows (kept across pages) can be removed into a
 * new version.
 */
export function TaskBrowser({
  versionId,
  levels,
  selected,
  onSelectedChange,
}: {
  versionId: number;
  levels: number[];
  selected: Set<string>;
  onSelectedChange: (next: Set<string>) => void;
}) {
  const [split, setSplit] = useState<Split | "">("");
  const [difficulty, setDifficulty] = useState<number | "">("");
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const filters: PoolTaskFilters = { split, difficulty, search: search.trim(), page, page_size: PAGE_SIZE };
  const tasks = usePoolTasks(versionId, filters);
  const rows = tasks.data?.results ?? [];
  const count = tasks.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));

  function toggle<T>(set: Set<T>, value: T): Set<T> {
    const next = new Set(set);
    if (next.has(value)) next.delete(value);
    else next.add(value);
    return next;
  }

  const allOnPage = rows.length > 0 && rows.every((t) => selected.has(t.content_hash));

  return (
    <>
      <div className="tf-toolbar" role="search" aria-label="Filter tasks">
        <div className="field">
          <label htmlFor="tasks-split">Split</label>
          <select id="tasks-split" className="select" value={split} onChange={(e) => { setSplit(e.target.value as Split | ""); setPage(1); }}>
            <option value="">All</option>
            <option value="train">Train</option>
            <option value="held_out">Held out</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="tasks-difficulty">Difficulty</label>
          <select
            id="tasks-difficulty"
            className="select"
            value={difficulty}
            onChange={(e) => { setDifficulty(e.target.value ? Number(e.target.value) : ""); setPage(1); }}
          >
            <option value="">All</option>
            {levels.map((l) => (
              <option key={l} value={l}>
                Level {l}
              </option>
            ))}
          </select>
        </div>
        <div className="field" style={{ flex: "1 1 220px" }}>
          <label htmlFor="tasks-search">Search</label>
          <input
            id="tasks-search"
            className="input"
            type="search"
            placeholder="Text in the prompt"
            value={search}
            onChange={(e) => { setSearch(e.target.value); setPage(1); }}
          />
        </div>
      </div>
      {!tasks.data && <QueryPlaceholder query={tasks} />}
      {tasks.data && rows.length === 0 && <p className="card-body subtle">No tasks match these filters.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Tasks">
            <thead>
              <tr>
                <th style={{ width: 32 }}>
                  <input
                    type="checkbox"
                    aria-label="Select all on this page"
                    checked={allOnPage}
                    onChange={() => {
                      const next = new Set(selected);
                      rows.forEach((t) => (allOnPage ? next.delete(t.content_hash) : next.add(t.content_hash)));
                      onSelectedChange(next);
                    }}
                  />
                </th>
                <th className="num">#</th>
                <th className="num">Level</th>
                <th>Split</th>
                <th>Prompt</th>
                <th>Hash</th>
                <th>
                  <span className="visually-hidden">Expand</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((task) => {
                const expanded = open.has(task.id);
                return (
                  <Fragment key={task.id}>
                    <tr>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select task ${task.position}`}
                          checked={selected.has(task.content_hash)}
                          onChange={() => onSelectedChange(toggle(selected, task.content_hash))}
                        />
                      </td>
                      <td className="num subtle">{task.position}</td>
                      <td className="num">{task.difficulty}</td>
                      <td>{task.split === "held_out" ? <span className="badge">held out</span> : "train"}</td>
                      <td className="tf-prompt-cell" title={task.prompt}>
                        {task.prompt}
                      </td>
                      <td className="mono subtle">{task.content_hash.slice(0, 8)}</td>
                      <td className="cell-actions">
                        <button
                          type="button"
                          className="btn btn-sm btn-ghost"
                          aria-expanded={expanded}
                          aria-label={`${expanded ? "Hide" : "Show"} task ${task.position}`}
                          onClick={() => setOpen(toggle(open, task.id))}
                        >
                          {expanded ? "Hide" : "Show"}
                        </button>
                      </td>
                    </tr>
                    {expanded && (
                      <tr className="tf-expanded">
                        <td />
                        <td colSpan={6}>
                          <TaskDetail task={task} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="tf-pager">
        <span aria-live="polite">
          {count} task{count === 1 ? "" : "s"}
          {tasks.isFetching && " · loading…"}
        </span>
        <div className="row">
          <button type="button" className="btn btn-sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" className="btn btn-sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      </div>
    </>
  );
}
