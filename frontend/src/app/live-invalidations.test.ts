import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";

import { familiesQueryOptions } from "@/lib/families";
import { keysForEvent } from "@/lib/live";
import { poolVersionsQueryOptions } from "@/lib/pool-versions";

import { LIVE_INVALIDATIONS } from "./provider";

/** A cache holding every list of families and pool versions the pages keep: the families
 * page (active and archived), the wizard's and the playground's (one shared fetcher each). */
function cacheWithLists(): QueryClient {
  const client = new QueryClient();
  for (const team of ["core", undefined]) {
    client.setQueryData(familiesQueryOptions(team).queryKey, []);
    client.setQueryData(familiesQueryOptions(team, true).queryKey, []);
    client.setQueryData(poolVersionsQueryOptions(team).queryKey, []);
  }
  return client;
}

async function staleAfter(type: string, client: QueryClient): Promise<string[]> {
  for (const queryKey of keysForEvent(type, LIVE_INVALIDATIONS)) await client.invalidateQueries({ queryKey });
  return client
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => JSON.stringify(q.queryKey))
    .sort();
}

describe("live invalidations", () => {
  it.each(["family.created", "family.updated", "family.archived", "family.restored", "family.deleted"])(
    "refreshes every list of families on %s",
    async (type) => {
      const client = cacheWithLists();
      const stale = await staleAfter(type, client);
      expect(stale.filter((k) => k.startsWith('["families"'))).toHaveLength(4);
      expect(stale.some((k) => k.startsWith('["pool-versions"'))).toBe(false);
    },
  );

  it("refreshes every list of pool versions, and the families' counts, when a version is frozen", async () => {
    const stale = await staleAfter("pool.version_created", cacheWithLists());
    expect(stale).toHaveLength(6);
  });

  it("refreshes the teams and the signed-in user when a membership changes", () => {
    for (const type of ["member.added", "member.removed", "member.role_changed"] as const) {
      expect(keysForEvent(type, LIVE_INVALIDATIONS)).toEqual([["teams"], ["auth", "me"]]);
    }
  });
});
