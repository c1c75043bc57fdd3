// A run's metrics for its charts: the REST history (downsampled per key), then the run's
// websocket from the history's sequence number on. Where no websocket server answers (a
// plain WSGI server), the same query polls the endpoint for what came after its cursor.
import { queryOptions, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";

import { api } from "@/lib/api-client";

import { fromColumns, mergeColumns, type RunMetrics } from "../lib/metric-series";
import { runCurriculumQueryKey } from "./get-run-curriculum";
import { runEventsQueryKey } from "./get-run-events";
import { RunStream, type MetricsFrame, type RunFrame, type StreamStatus } from "./run-stream";
import { runQueryKey, type Run, type RunMetricsBody } from "./types";

/** Points per key a chart asks for; the server keeps spikes when it downsamples. */
export const CHART_MAX_POINTS = 2_000;
export const POLL_INTERVAL_MS = 2_000;

export function runMetricsQueryKey(id: number) {
  return [...runQueryKey(id), "metrics"] as const;
}

export function getRunMetrics(id: number, since: number | null, signal?: AbortSignal): Promise<RunMetricsBody> {
  const query = { max_points: CHART_MAX_POINTS, since: since ?? undefined };
  return api.get<RunMetricsBody>(`/api/v1/runs/${id}/metrics/`, query, signal);
}

export function runMetricsQueryOptions(id: number, poll = false) {
  return queryOptions({
    queryKey: runMetricsQueryKey(id),
    queryFn: async ({ client, signal }): Promise<RunMetrics> => {
      const held = client.getQueryData<RunMetrics>(runMetricsQueryKey(id));
      const body = await getRunMetrics(id, held?.seq ?? null, signal);
      if (!held || held.seq === null) return fromColumns(body.points, body.seq);
      // Frames may have landed while the request was out: merge into the newest copy.
      return mergeColumns(client.getQueryData<RunMetrics>(runMetricsQueryKey(id)) ?? held, body.points, body.seq);
    },
    // Long series: comparing them deeply on every update costs more than redrawing.
    structuralSharing: false,
    refetchInterval: poll ? POLL_INTERVAL_MS : false,
  });
}

function applyFrame(queryClient: QueryClient, id: number, frame: MetricsFrame): void {
  queryClient.setQueryData<RunMetrics>(runMetricsQueryKey(id), (held) =>
    frame.type === "history" ? fromColumns(frame.points, frame.seq) : mergeColumns(held, frame.points, frame.seq),
  );
}

function applyRun(queryClient: QueryClient, id: number, frame: RunFrame): void {
  queryClient.setQueryData<Run>(runQueryKey(id), (held) => (held ? { ...held, ...frame.run, state: frame.run.state as Run["state"] } : held));
  // Timestamps, the failure reason's log lines and the worker come with the full run.
  void queryClient.invalidateQueries({ queryKey: runQueryKey(id), exact: true });
}

/**
 * The run's metrics, live while `active`: `stream` says how they arrive ("live" over the
 * websocket, "unavailable" when polling instead, "paused" in a hidden tab).
 */
export function useRunMetrics(id: number, active: boolean) {
  const queryClient = useQueryClient();
  const [stream, setStream] = useState<StreamStatus>("closed");
  const streaming = stream === "live" || stream === "paused";
  const query = useQuery(runMetricsQueryOptions(id, active && !streaming));
  const loaded = query.isSuccess;

  useEffect(() => {
    if (!active || !loaded) return;
    const client = new RunStream({
      runId: id,
      since: queryClient.getQueryData<RunMetrics>(runMetricsQueryKey(id))?.seq ?? null,
      onMetrics: (frame) => applyFrame(queryClient, id, frame),
      onRun: (frame) => applyRun(queryClient, id, frame),
      onEvents: () => {
        void queryClient.invalidateQueries({ queryKey: runEventsQueryKey(id) });
        void queryClient.invalidateQueries({ queryKey: runCurriculumQueryKey(id) });
      },
      onStatus: setStream,
    });
    client.start();
    return () => {
      client.stop();
      setStream("closed");
    };
  }, [id, active, loaded, queryClient]);

  // When the run finishes the stream stops: one last read makes sure its final points are in.
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) void queryClient.invalidateQueries({ queryKey: runMetricsQueryKey(id), exact: true });
    wasActive.current = active;
  }, [active, id, queryClient]);

  return { ...query, stream };
}
