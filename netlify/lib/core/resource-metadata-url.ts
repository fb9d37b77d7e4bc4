// Where a protected resource's metadata lives (RFC 9728 3.1): the well-known path inserted
// between the host and the resource's path and query.
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The metadata URL of an absolute resource URL; `query`, the resource's own unless given. */
export function resourceMetadataUrl(resource: URL, query = resource.search): string {
  const path = resource.pathname === "/" ? "" : resource.pathname;
  return `${resource.origin}${RESOURCE_METADATA_PATH}${path}${query}`;
}
