// The team the user is working in: kept in localStorage and sent as ?team=<slug>
// by feature API calls.
import { useCallback, useSyncExternalStore } from "react";

import { useMe, type MeTeam } from "@/lib/auth";

export const TEAM_STORAGE_KEY = "crucible.team";

const listeners = new Set<() => void>();

function readStoredTeam(): string | null {
  try {
    return window.localStorage.getItem(TEAM_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeTeam(slug: string): void {
  try {
    window.localStorage.setItem(TEAM_STORAGE_KEY, slug);
  } catch {
    // Private mode or a full quota: the choice lasts until reload.
  }
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === TEAM_STORAGE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** The stored team when the user still belongs to it, else their first team. */
export function resolveTeam(teams: MeTeam[], stored: string | null): MeTeam | null {
  return teams.find((t) => t.slug === stored) ?? teams[0] ?? null;
}

export function useCurrentTeam() {
  const stored = useSyncExternalStore(subscribe, readStoredTeam, () => null);
  const teams = useMe().data?.teams ?? [];
  const setTeam = useCallback((slug: string) => storeTeam(slug), []);
  return { team: resolveTeam(teams, stored), teams, setTeam };
}

/** Query parameters that scope a feature request to the current team. */
export function teamQuery(team: MeTeam | null): { team?: string } {
  return team ? { team: team.slug } : {};
}
