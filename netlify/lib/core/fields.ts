// A request's form fields as a route declared them (http/route.ts): only the declared names can
// be read, so a handler or helper that reads another is a type error. Properties, not methods,
// so that the names are checked both ways (a helper asking for more than a route declares fails).
// A URLSearchParams is one; unknown fields in the body are simply never read (RFC 6749 3.1).
export interface Fields<P extends string> {
  readonly get: (name: P) => string | null;
  readonly getAll: (name: P) => string[];
}
