import { QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { createMemoryRouter, RouterProvider, type RouteObject } from "react-router";

import { AppProvider } from "@/app/provider";
import { routes as appRoutes } from "@/app/router";

export function createTestQueryClient() {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } },
  });
}

/** Renders the real route tree at `path`, with a fresh cache and no websocket. */
export function renderApp(path: string, routes: RouteObject[] = appRoutes) {
  const queryClient = createTestQueryClient();
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = render(
    <AppProvider queryClient={queryClient} live={false}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...result, router, queryClient };
}

/** Renders one element inside the providers and a router. */
export function renderWithProviders(element: ReactElement, path = "/") {
  return renderApp(path, [{ path: "*", element }]);
}
