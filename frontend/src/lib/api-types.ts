// Type helpers over the generated OpenAPI `paths`, so feature API files name an
// endpoint by its URL and method, as the backend documents it.
import type { paths } from "@/api/schema";

type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];

type JsonContent<T> = T extends { content: { "application/json": infer B } } ? B : never;

export type ApiResponse<
  P extends keyof paths,
  M extends keyof paths[P],
  S extends number = 200,
> = Operation<P, M> extends { responses: infer R }
  ? S extends keyof R
    ? JsonContent<R[S]>
    : never
  : never;

export type ApiRequestBody<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** The item type of a list endpoint, paginated (`{results}`) or not. */
export type ListItem<T> = T extends { results: (infer I)[] } ? I : T extends (infer I)[] ? I : never;

export type Paginated<T> = { count: number; next?: string | null; previous?: string | null; results: T[] };

export function listResults<T>(data: Paginated<T> | T[]): T[] {
  return Array.isArray(data) ? data : data.results;
}
