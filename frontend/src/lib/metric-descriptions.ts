// What each training metric means and what healthy looks like, in a sentence or two: the
// charts' hover text and captions, the run page and the comparison table all read it from
// the engine's metric catalogue (training/metric_catalogue.py), served by the API. An exact
// name describes itself; a template ("success/{family}/d{difficulty}") describes every key
// its pattern matches, with the key's parts in place of the placeholders.
import { queryOptions, useQuery } from "@tanstack/react-query";
import { useCallback } from "react";

import type { components } from "@/api/schema";
import { api } from "@/lib/api-client";

export type MetricSpec = components["schemas"]["MetricSpec"];

export const metricCatalogueQueryKey = ["metric_catalogue"] as const;

export function metricCatalogueOptions() {
  return queryOptions({
    queryKey: metricCatalogueQueryKey,
    queryFn: ({ signal }) => api.get<MetricSpec[]>("/api/v1/metrics/catalogue/", undefined, signal),
    // The catalogue changes only with a new release of the engine.
    staleTime: Infinity,
  });
}

/** The neutral sentence for a name the catalogue does not know (or before it has loaded). */
export function unknownMetric(key: string): string {
  return `The value the run reported as “${key}” at each step.`;
}

/** What `key` measures and what healthy looks like, by `catalogue`. */
export function describeMetric(key: string, catalogue: readonly MetricSpec[] | undefined): string {
  const specs = catalogue ?? [];
  const exact = specs.find((spec) => spec.placeholders.length === 0 && spec.name === key);
  if (exact) return exact.description;
  for (const spec of specs) {
    if (spec.placeholders.length === 0) continue;
    const match = new RegExp(spec.pattern).exec(key);
    if (!match) continue;
    return spec.placeholders.reduce(
      (text, name, i) => text.replaceAll(`{${name}}`, (match[i + 1] ?? "").replace(/_/g, " ")),
      spec.description,
    );
  }
  return unknownMetric(key);
}

/** `describeMetric` over the catalogue, fetched once per page load. */
export function useDescribeMetric(): (key: string) => string {
  const { data } = useQuery(metricCatalogueOptions());
  return useCallback((key: string) => describeMetric(key, data), [data]);
}
