/** The per-run context kinds work in: the API client, a caching name resolver, and the platform's edition. */
import { type ApiClient, ApiError, apiPath, listOf } from "../api/index.js";
import type { KindContext, PlatformUser, Resolver } from "../kinds/kind.js";

function cachingResolver(api: ApiClient): Resolver {
  const users = new Map<string, Promise<PlatformUser | undefined>>();
  const groups = new Map<string, Promise<{ id: number; fullPath: string } | undefined>>();
  const orUndefinedOn404 = async <T>(p: Promise<T>): Promise<T | undefined> => {
    try {
      return await p;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  };
  const resolver: Resolver = {
    user(username) {
      let p = users.get(username);
      if (!p) {
        p = api
          .get<PlatformUser[]>("/users", {
            query: { username },
            shape: listOf({ id: "integer", username: "string", state: "string?" }),
          })
          .then((found) => {
            const u = found.find((x) => x.username.toLowerCase() === username.toLowerCase());
            return u && { id: u.id, username: u.username, state: u.state ?? "active" };
          });
        users.set(username, p);
      }
      return p;
    },
    userId(username) {
      return resolver.user(username).then((u) => u?.id);
    },
    group(fullPath) {
      const key = fullPath.toLowerCase();
      let p = groups.get(key);
      if (!p) {
        p = orUndefinedOn404(
          api.get<{ id: number; full_path?: string }>(apiPath`/groups/${fullPath}`, {
            query: { with_projects: false },
            shape: { id: "integer", full_path: "string?" },
          }),
        ).then((g) => g && { id: g.id, fullPath: g.full_path ?? fullPath });
        groups.set(key, p);
      }
      return p;
    },
    groupId(fullPath) {
      return resolver.group(fullPath).then((g) => g?.id);
    },
    rememberGroup(fullPath, id) {
      groups.set(fullPath.toLowerCase(), Promise.resolve({ id, fullPath }));
    },
  };
  return resolver;
}

/** Builds the context; asks the platform for its version once to learn the edition. */
export async function createContext(api: ApiClient): Promise<KindContext> {
  const version = await api.get<{ version?: string }>("/version", { shape: { version: "string?" } });
  const edition = /-ee\b/i.test(version.version ?? "") ? "licensed" : "core";
  return { api, resolve: cachingResolver(api), edition, memo: new Map() };
}
