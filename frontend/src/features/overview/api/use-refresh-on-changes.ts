import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";

import { useLiveClient } from "@/lib/live";

/** Audited changes arrive live with the type of what changed: the feed and the counts follow. */
export function useRefreshOnChanges() {
  const live = useLiveClient();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!live) return;
    return live.onEvent((event) => {
      if (typeof event.target_type !== "string") return;
      void queryClient.invalidateQueries({ queryKey: ["audit"] });
      void queryClient.invalidateQueries({ queryKey: ["team-summary"] });
    });
  }, [live, queryClient]);
}
