// Browser-based clients call the token endpoints from other origins. No cookies are involved
// there (those endpoints never read one), so any origin may read the answers.

export function preflight(methods: readonly string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": methods.join(", "),
      "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept",
      "Access-Control-Max-Age": "86400",
    },
  });
}

export function readableByAnyOrigin(response: Response): Response {
  response.headers.set("Access-Control-Allow-Origin", "*");
  response.headers.set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After");
  return response;
}
