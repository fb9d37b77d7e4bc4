// A module imported on use, once: the first call starts the import and every later call gets
// the same promise. Node caches modules, but each `import()` still resolves its specifier
// again (through any loader hooks), which a request on the hot path need not pay. A failed
// load is forgotten, so the next call tries again.

export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
