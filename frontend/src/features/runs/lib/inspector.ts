// The rollout inspector's filters: they live in the page's URL (a chart's point links to
// `?step=N`), travel to the API as they are (the server names a bad one), and the choices
// offered come from the metric keys the run reported.

export const FILTERS = ["step", "family", "difficulty", "passed", "error_type", "reward_min", "reward_max", "search", "page"] as const;

export type FilterName = (typeof FILTERS)[number];

/** Each filter as its query-string text; absent when not set. */
export type Filters = Partial<Record<FilterName, string>>;

/** Filters that pick completions within a group (the others pick whole groups). */
const COMPLETION_FILTERS: FilterName[] = ["passed", "error_type", "reward_min", "reward_max", "search"];

export function filtersFromParams(params: URLSearchParams): Filters {
  const out: Filters = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value) out[name] = value;
  }
  return out;
}

/** `params` with one filter changed (removed when empty); any change but paging goes back to page 1. */
export function withFilter(params: URLSearchParams, name: FilterName, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  if (value) next.set(name, value);
  else next.delete(name);
  if (name !== "page") next.delete("page");
  return next;
}

/** Some completions of a shown group may not match: the inspector dims those. */
export function narrowsCompletions(filters: Filters): boolean {
  return COMPLETION_FILTERS.some((name) => filters[name] !== undefined);
}

export type Choices = { families: string[]; levels: number[]; errorTypes: string[] };

/** Families (`success/<family>`), levels (`success/<family>/d<k>`) and error types (`errors/<type>`). */
export function inspectorChoices(metricKeys: Iterable<string>): Choices {
  const families = new Set<string>();
  const levels = new Set<number>();
  const errorTypes = new Set<string>();
  for (const key of metricKeys) {
    const level = /^success\/[^/]+\/d(-?\d+)$/.exec(key);
    const family = /^success\/([^/]+)$/.exec(key);
    const error = /^errors\/([^/]+)$/.exec(key);
    if (level) levels.add(Number(level[1]));
    if (family) families.add(family[1]!);
    if (error) errorTypes.add(error[1]!);
  }
  return {
    families: [...families].sort(),
    levels: [...levels].sort((a, b) => a - b),
    errorTypes: [...errorTypes].sort(),
  };
}
