// A CommonJS package imported on use. Node hands its exports over as the namespace's `default`
// (with the names it can detect beside it); in the deployed functions, esbuild's ESM build of it
// hands over `default` only. So `default` is the one reading that holds in both.

export async function importCommonJs<T extends object>(load: () => Promise<T>): Promise<T> {
  const namespace = await load();
  return (namespace as { default?: T }).default ?? namespace;
}
